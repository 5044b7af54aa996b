import * as OpenApiJsonSchema from "@effect/platform/OpenApiJsonSchema"
import { Either, Option, Schema, SchemaAST } from "effect"
import type { Route } from "./route.js"

// The OpenAPI document is generated from the route table's own schemas, so the reference cannot
// drift from what the server accepts and returns.

const ErrorBody = Schema.Struct({
  type: Schema.String,
  code: Schema.String,
  detail: Schema.String,
  attr: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ErrorBody", description: "Every error answers with this body." })

const errorStatuses: Record<number, string> = {
  400: "Invalid input: the body names the field in `attr`.",
  401: "No personal API key, or an invalid one.",
  403: "The key lacks the scope or access to the project.",
  404: "Not found.",
  503: "Not available now: try again after `Retry-After` seconds; `code` says why."
}

const operationId = (method: string, path: string) =>
  [method.toLowerCase(), ...path.split("/").filter((s) => s !== "" && s !== "api")]
    .map((s) => s.replace(/^:/, "by_").replace(/[^A-Za-z0-9_]/g, "_"))
    .join("_")

const withoutUndefined = (ast: SchemaAST.AST): SchemaAST.AST =>
  SchemaAST.isUnion(ast) ? SchemaAST.Union.make(ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t))) : ast

export interface OpenApiDocument {
  readonly openapi: string
  readonly info: { readonly title: string; readonly version: string; readonly description: string }
  readonly paths: Record<string, Record<string, unknown>>
  readonly components: Record<string, unknown>
}

export const openApiDocument = (routes: ReadonlyArray<Route<any>>, version: string): OpenApiDocument => {
  const defs: Record<string, unknown> = {}
  const jsonSchema = (schema: Schema.Schema.AnyNoContext) =>
    OpenApiJsonSchema.makeWithDefs(schema, { defs, defsPath: "#/components/schemas/" })
  const errorRef = jsonSchema(ErrorBody)

  const queryParameters = (schema: Schema.Schema.AnyNoContext | undefined) => {
    const ast = schema && SchemaAST.encodedAST(schema.ast)
    if (ast === undefined || !SchemaAST.isTypeLiteral(ast)) return []
    const typed = SchemaAST.typeAST(schema!.ast) as SchemaAST.TypeLiteral
    return ast.propertySignatures.map((ps) => {
      const type = typed.propertySignatures.find((t) => t.name === ps.name)!
      const ast = withoutUndefined(type.type)
      const description =
        Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(ast)) ??
        Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(withoutUndefined(ps.type)))
      // The decoded side says more (an integer, a list), when it can be described; a date cannot.
      const schema = Either.getOrElse(
        Either.try(() => jsonSchema(Schema.make(ast))),
        () => jsonSchema(Schema.make(withoutUndefined(ps.type)))
      )
      return {
        name: String(ps.name),
        in: "query",
        required: !ps.isOptional,
        ...(description ? { description } : {}),
        schema
      }
    })
  }

  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    for (const path of route.paths) {
      const pathParams = [...path.matchAll(/:(\w+)/g)].map((m) => ({
        name: m[1]!,
        in: "path",
        required: true,
        schema: { type: "string" },
        ...(m[1] === "project_id"
          ? { description: "Project id, or `@current` for the key owner's current project." }
          : {})
      }))
      const errors = [
        ...(route.schemas.body || route.schemas.query ? [400] : []),
        ...(route.access._tag === "PersonalKey" ? [401, 403] : []),
        ...(pathParams.length > 0 ? [404] : []),
        ...route.errors
      ]
      const success = route.schemas.response
        ? { description: "Success.", content: { "application/json": { schema: jsonSchema(route.schemas.response) } } }
        : { description: "Success." }
      const operation = {
        operationId: operationId(route.method, path),
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        parameters: [...pathParams, ...queryParameters(route.schemas.query)],
        ...(route.schemas.body
          ? {
              requestBody: {
                required: true,
                content: { "application/json": { schema: jsonSchema(route.schemas.body) } }
              }
            }
          : {}),
        responses: Object.fromEntries([
          [String(route.status), success],
          ...errors.map((status) => [
            String(status),
            { description: errorStatuses[status], content: { "application/json": { schema: errorRef } } }
          ])
        ]),
        security: route.access._tag === "PersonalKey" ? [{ PersonalAPIKey: [route.access.scope] }] : [],
        ...(route.access._tag === "PersonalKey" ? { "x-required-scope": route.access.scope } : {})
      }
      // API paths are written with PostHog's trailing slash; every path answers either way.
      const key = path.replace(/:(\w+)/g, "{$1}") + (path.startsWith("/api/") ? "/" : "")
      ;(paths[key] ??= {})[route.method.toLowerCase()] = operation
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Zed API",
      version,
      description:
        "Product analytics API, wire-compatible with PostHog's. Every path also answers without its trailing slash."
    },
    paths,
    components: {
      schemas: defs,
      securitySchemes: {
        PersonalAPIKey: {
          type: "http",
          scheme: "bearer",
          description: "A personal API key (`phx_…`) with the scopes the operation names."
        }
      }
    }
  }
}
