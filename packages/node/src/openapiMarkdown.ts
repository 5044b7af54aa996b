import type { OpenApiDocument } from "@zed/core"

// Renders the OpenAPI document as the Markdown API reference in docs/. Generated, never edited.

interface Operation {
  readonly summary: string
  readonly description?: string
  readonly tags: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<{
    name: string
    in: string
    required: boolean
    description?: string
    schema: unknown
  }>
  readonly requestBody?: { content: Record<string, { schema: unknown }> }
  readonly responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>
  readonly "x-required-scope"?: string
}

const typeOf = (schema: any): string => {
  if (schema === undefined) return ""
  if (schema.$ref) return `[${schema.$ref.split("/").pop()}](#${String(schema.$ref.split("/").pop()).toLowerCase()})`
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" \\| ")
  if (schema.enum) return schema.enum.map((v: unknown) => `\`${JSON.stringify(v)}\``).join(" \\| ")
  if (schema.type === "array") return `array of ${typeOf(schema.items)}`
  return schema.type ?? "any"
}

const fields = (schema: any): Array<string> => {
  if (schema?.type !== "object" || schema.properties === undefined) return [`Body: ${typeOf(schema)}`, ""]
  const required = new Set<string>(schema.required ?? [])
  return [
    "| Field | Type | Required | Notes |",
    "|---|---|---|---|",
    ...Object.entries<any>(schema.properties).map(
      ([name, field]) =>
        `| \`${name}\` | ${typeOf(field)} | ${required.has(name) ? "yes" : "no"} | ${(field.description ?? "").replace(/\n/g, " ")} |`
    ),
    ""
  ]
}

export const renderMarkdown = (doc: OpenApiDocument): string => {
  const lines = [
    `# ${doc.info.title} reference (${doc.info.version})`,
    "",
    "Generated from the route schemas by `npm run docs:api`; the same document is served at `GET /api/schema/`.",
    "",
    doc.info.description,
    "",
    "Errors answer with `{type, code, detail, attr}` (see [ErrorBody](#errorbody)). Management routes take",
    "`Authorization: Bearer <personal API key>` holding the scope each operation names.",
    ""
  ]
  const byTag = new Map<string, Array<[string, string, Operation]>>()
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods as Record<string, Operation>)) {
      const tag = op.tags[0] ?? "other"
      byTag.set(tag, [...(byTag.get(tag) ?? []), [method.toUpperCase(), path, op]])
    }
  }
  for (const [tag, operations] of byTag) {
    lines.push(`## ${tag}`, "")
    for (const [method, path, op] of operations) {
      lines.push(`### \`${method} ${path}\``, "", op.summary + ".", "")
      if (op.description) lines.push(op.description, "")
      lines.push(`Scope: ${op["x-required-scope"] ? `\`${op["x-required-scope"]}\`` : "none (public)"}`, "")
      if (op.parameters.length > 0) {
        lines.push("| Parameter | In | Type | Required | Notes |", "|---|---|---|---|---|")
        for (const p of op.parameters) {
          const schema = p.schema as any
          lines.push(
            `| \`${p.name}\` | ${p.in} | ${typeOf(schema)} | ${p.required ? "yes" : "no"} | ${p.description ?? schema?.description ?? ""} |`
          )
        }
        lines.push("")
      }
      const body = op.requestBody?.content["application/json"]?.schema
      if (body) lines.push("Request body:", "", ...fields(resolve(doc, body)))
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.["application/json"]?.schema
        lines.push(`- **${status}** ${response.description}${schema ? ` Body: ${typeOf(schema)}` : ""}`)
      }
      lines.push("")
    }
  }
  lines.push("## Schemas", "")
  for (const [name, schema] of Object.entries<any>(doc.components["schemas"] as Record<string, unknown>)) {
    lines.push(`### ${name}`, "", ...(schema.description ? [schema.description, ""] : []), ...fields(schema))
  }
  return lines.join("\n")
}

const resolve = (doc: OpenApiDocument, schema: any): unknown =>
  schema?.$ref ? (doc.components["schemas"] as Record<string, unknown>)[schema.$ref.split("/").pop()] : schema
