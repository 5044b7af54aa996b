import { Effect, Either, Option, Runtime, Schema } from "effect"
import { EXPORT_FORMATS, type ExportFormat, ExportedAsset as Entity } from "../../exports/exportEntity.js"
import { ExportRunner } from "../../exports/ExportRunner.js"
import { EXTENSIONS } from "../../exports/formats.js"
import { type ExportSource, keyedEvents, zedqlPage } from "../../exports/sources.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import type { Project } from "../../domain/models.js"
import { sqlSource } from "../../insights/queryNode.js"
import { planActorsQuery } from "../../queries/actorsQuery.js"
import { planEventsQuery } from "../../queries/eventsQuery.js"
import {
  actorsQueryOf,
  isActors,
  isInsight,
  isTable,
  isZedQL,
  QueryRequest,
  tableSourceOf,
  type ZedQLQueryNode
} from "../../queries/request.js"
import { QueryRunner } from "../../queries/runner.js"
import { QueryFailed } from "../../services/QueryExecutor.js"
import { ExportStore, type StoredExport } from "../../services/ExportStore.js"
import { InsightStore } from "../../services/InsightStore.js"
import { decode } from "../../schema/decode.js"
import { Instant, IntIn, PathId } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { parseSelect } from "../../zedql/parse.js"
import { NotFound } from "../errors.js"
import { queryFailure } from "../queryReplies.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"
import { ListParams as PersonListParams } from "../wire/persons.js"

// Exports (PostHog's exported assets): a query's rows, a persons list or an insight's result
// written in the background as CSV, a JSON array or JSON lines, then downloaded from
// `…/exports/:id/content/`.

const TAG = "exports"

/** How long an export's content is kept unless the request says otherwise. */
const KEPT_DAYS = 7

const ExportContext = Schema.Struct(
  {
    query: Schema.optional(Schema.Unknown),
    path: Schema.optional(Schema.String),
    filename: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

const ExportCreate = Schema.Struct({
  export_format: Schema.Literal(...EXPORT_FORMATS),
  export_context: Schema.optional(Schema.NullOr(ExportContext)),
  insight: Schema.optional(Schema.NullOr(IntIn(1))),
  dashboard: Schema.optional(Schema.NullOr(IntIn(1))),
  expires_after: Schema.optional(Schema.NullOr(Instant))
}).annotations({ identifier: "ExportedAssetCreate" })

const ExportedAsset = Schema.Struct({
  id: Entity.fields.id,
  export_format: Entity.fields.export_format,
  export_context: Entity.fields.export_context,
  insight: Entity.fields.insight,
  dashboard: Entity.fields.dashboard,
  filename: Entity.fields.filename,
  has_content: Entity.fields.has_content,
  exception: Entity.fields.exception,
  row_count: Entity.fields.row_count,
  content_size: Entity.fields.content_size,
  expires_after: Schema.NullOr(Schema.Date),
  created_at: Schema.Date
}).annotations({ identifier: "ExportedAsset" })

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

/** A query's mistake (it does not parse, names what does not exist) is the request's, at `attr`. */
const asInput = (attr: string) => (error: Parameters<typeof queryFailure>[0]) =>
  queryFailure(error).pipe(
    Effect.catchTag("QueryInvalid", (e) => Effect.fail(new ValidationError({ code: e.code, detail: e.detail, attr })))
  )

/** A ZedQL node's rows, checked now: it parses and compiles (read as an empty page). */
const zedqlSource = (project: Project, node: ZedQLQueryNode, attr: string) =>
  Effect.gen(function* () {
    const tree = yield* parseSelect(node.query)
    yield* (yield* QueryRunner).table(project, zedqlPage(tree, 0, 0), {
      values: { ...node.values },
      filters: node.filters ?? undefined
    })
    return { _tag: "ZedQL", node, tree } as const
  }).pipe(Effect.catchAll(asInput(attr)))

const planFailure = (error: { readonly message: string }) => new QueryFailed({ message: error.message })

const ctxOf = (project: Project) => ({ timezone: project.timezone, now: new Date(), weekStartDay: 0 as const })

/** What `export_context.query` asks for, as the rows an export reads. */
const querySource = (project: Project, raw: unknown) =>
  Effect.gen(function* () {
    const { query } = (yield* decode(
      Schema.Struct({ export_context: Schema.Struct({ query: QueryRequest.fields.query }) }),
      { export_context: { query: raw } }
    )).export_context
    if (isZedQL(query)) return yield* zedqlSource(project, query, "export_context__query__query")
    if (isTable(query)) {
      const node = tableSourceOf(query)
      const keyed = keyedEvents(node)
      // A table that aggregates has no event to resume after: it is paged by offset.
      const grouped =
        keyed !== null &&
        (yield* Effect.either(planEventsQuery(keyed(1, null)))).pipe(
          Either.match({
            onLeft: () => true,
            onRight: (plan) => plan.queries.some((q) => "group_by" in q && q.group_by != null)
          })
        )
      if (keyed !== null && !grouped)
        return {
          _tag: "Keyed",
          plan: (limit, after) =>
            Effect.mapError(
              Effect.suspend(() => planEventsQuery(keyed(limit, after))),
              planFailure
            )
        } satisfies ExportSource
      return {
        _tag: "Planned",
        limit: node.limit ?? null,
        offset: node.offset ?? 0,
        plan: (limit, offset) => Effect.mapError(planEventsQuery({ ...node, limit, offset }), planFailure)
      } satisfies ExportSource
    }
    if (isActors(query)) {
      const node = actorsQueryOf(query)
      return {
        _tag: "Planned",
        limit: node.limit ?? null,
        offset: node.offset ?? 0,
        plan: (limit, offset) =>
          Effect.mapError(planActorsQuery({ ...node, limit, offset }, ctxOf(project)), planFailure)
      } satisfies ExportSource
    }
    if (isInsight(query)) return { _tag: "Insight", query: { kind: "InsightVizNode", source: query } } as const
    return yield* invalid(`A ${query.kind} cannot be exported.`, "export_context__query__kind")
  })

/** `export_context.path`: a persons list's URL, its filters as the list takes them. */
const pathSource = (path: string) =>
  Effect.gen(function* () {
    const url = URL.parse(path, "http://zed.invalid")
    if (url === null || !/\/persons\/?$/.test(url.pathname))
      return yield* invalid("Only a persons list (…/persons/?…) can be exported by path.", "export_context__path")
    const params = yield* decode(PersonListParams, Object.fromEntries(url.searchParams)).pipe(
      Effect.mapError((e) => new ValidationError({ ...e, attr: `export_context__path__${e.attr ?? ""}` }))
    )
    return {
      _tag: "Persons",
      filters: {
        distinct_id: params.distinct_id,
        email: params.email,
        search: params.search,
        properties: params.properties ?? []
      }
    } as const
  })

/** The source and file name of what the request asks to export. */
const sourceOf = (project: Project, body: typeof ExportCreate.Type) =>
  Effect.gen(function* () {
    const ext = EXTENSIONS[body.export_format]
    const context = body.export_context ?? null
    const named = (name: string) => context?.filename ?? `${name}.${ext}`
    if (body.insight != null) {
      const insight = yield* (yield* InsightStore).get(project.id, body.insight)
      if (Option.isNone(insight))
        return yield* invalid(`Insight ${body.insight} does not exist in this project.`, "insight")
      const sql = sqlSource(insight.value.query)
      const source: ExportSource =
        sql !== undefined && Either.isRight(sql)
          ? yield* zedqlSource(project, sql.right, "insight")
          : { _tag: "Insight", query: insight.value.query }
      return { source, filename: named(insight.value.name || insight.value.derived_name || `insight-${body.insight}`) }
    }
    if (context?.query !== undefined)
      return { source: yield* querySource(project, context.query), filename: named("export") }
    if (context?.path !== undefined) return { source: yield* pathSource(context.path), filename: named("persons") }
    return yield* invalid(
      "Say what to export: an insight, export_context.query or export_context.path.",
      "export_context"
    )
  })

const find = (project: Project, id: number) =>
  Effect.flatMap(
    Effect.flatMap(ExportStore, (s) => s.get(project.id, id)),
    Option.match({ onNone: () => Effect.fail(new NotFound({ detail: "Not found." })), onSome: Effect.succeed })
  )

const Ref = Schema.Struct({ id: PathId })

const list = environmentRoute({
  method: "GET",
  path: "/exports",
  tag: TAG,
  summary: "List exports",
  description: "Newest first.",
  scope: "export:read",
  query: PageParams,
  response: Paginated(ExportedAsset, "PaginatedExportedAssetList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* ExportStore).list(project.id, page)
      return paginated(request.url, page, count, results)
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/exports",
  tag: TAG,
  summary: "Export a query, a persons list or an insight",
  description:
    "`export_format` `text/csv`, `application/json` (an array) or `application/jsonl` (JSON lines). What is exported: `insight` (an insight's id: a ZedQL insight's rows, another's result as a table), `export_context.query` (a ZedQL query, an `EventsQuery`/`DataTableNode`, an `ActorsQuery` or an insight kind) or `export_context.path` (a persons list's URL with its filters). Answers 201 at once; the export runs in the background: poll `GET …/exports/:id/` until `has_content` (or `exception`), then download `…/exports/:id/content/`.",
  scope: "export:write",
  body: ExportCreate,
  response: ExportedAsset,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const { filename, source } = yield* sourceOf(project, body)
      const asset = yield* (yield* ExportStore).create(project.id, {
        export_format: body.export_format,
        export_context: body.export_context ?? null,
        insight: body.insight ?? null,
        dashboard: body.dashboard ?? null,
        filename,
        expires_after: body.expires_after ?? new Date(Date.now() + KEPT_DAYS * 86_400_000),
        created_by: principal.user.id
      })
      yield* (yield* ExportRunner).start(project, asset, source)
      return asset
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/exports/:id",
  tag: TAG,
  summary: "Retrieve an export",
  description: "`has_content` once its content is complete; `exception` when it failed.",
  scope: "export:read",
  params: Ref,
  response: ExportedAsset,
  handler: ({ params, project }) => find(project, params.id)
})

/** The content as it is kept, a chunk at a time: a download holds one chunk. */
const contentStream = (asset: StoredExport) =>
  Effect.gen(function* () {
    const store = yield* ExportStore
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    let seq = 0
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await run(store.chunk(asset.id, seq++))
        if (Option.isSome(chunk)) controller.enqueue(chunk.value)
        else controller.close()
      }
    })
  })

const MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  "text/csv": "text/csv; charset=utf-8",
  "application/json": "application/json",
  "application/jsonl": "application/jsonl"
}

const content = environmentRoute({
  method: "GET",
  path: "/exports/:id/content",
  tag: TAG,
  summary: "Download an export's content",
  description: "404 until the export has its content (`has_content`).",
  scope: "export:read",
  params: Ref,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const asset = yield* find(project, params.id)
      if (!asset.has_content) return yield* new NotFound({ detail: "The export has no content (yet)." })
      return new Reply(200, yield* contentStream(asset), {
        "content-type": MEDIA_TYPES[asset.export_format],
        "content-length": String(asset.content_size),
        "content-disposition": `attachment; filename="${asset.filename.replaceAll(/["\\\r\n]/g, "_")}"`
      })
    })
})

export const exportRoutes = [list, create, retrieve, content]
