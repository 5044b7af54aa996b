import type { ComponentType } from "react"
import type { InsightQuery } from "./api.js"
import { FunnelForm, funnelComplete, funnelDraft, funnelsQuery, INITIAL_FUNNEL } from "./components/FunnelForm.js"
import {
  INITIAL_LIFECYCLE,
  LifecycleForm,
  lifecycleComplete,
  lifecycleDraft,
  lifecycleQuery
} from "./components/LifecycleForm.js"
import {
  INITIAL_RETENTION,
  RetentionForm,
  retentionComplete,
  retentionDraft,
  retentionQuery
} from "./components/RetentionForm.js"
import { INITIAL_STICKINESS, StickinessForm, stickinessDraft, stickinessQuery } from "./components/StickinessForm.js"
import { INITIAL_TRENDS, TrendsForm, trendsComplete, trendsDraft, trendsQuery } from "./components/TrendsForm.js"
import type { DraftFormProps } from "./insightDraft.js"
import { canonical, type Fields } from "./queryFields.js"

// The insight builder's kinds: each one's form, its first draft, the query node a draft makes,
// whether that node can be computed yet, and the draft a stored node of its kind reads back as.

export interface Builder<D> {
  readonly label: string
  readonly initial: D
  readonly Form: ComponentType<DraftFormProps<D>>
  readonly query: (draft: D) => InsightQuery
  readonly complete: (draft: D) => boolean
  /** The query source kind it builds. */
  readonly source: string
  readonly draft: (source: Fields) => D
}

const builder = <D>(spec: Builder<D>): Builder<D> => spec

export const BUILDERS = {
  trends: builder({
    label: "Trends",
    initial: INITIAL_TRENDS,
    Form: TrendsForm,
    query: trendsQuery,
    complete: trendsComplete,
    source: "TrendsQuery",
    draft: trendsDraft
  }),
  funnel: builder({
    label: "Funnel",
    initial: INITIAL_FUNNEL,
    Form: FunnelForm,
    query: funnelsQuery,
    complete: funnelComplete,
    source: "FunnelsQuery",
    draft: funnelDraft
  }),
  retention: builder({
    label: "Retention",
    initial: INITIAL_RETENTION,
    Form: RetentionForm,
    query: retentionQuery,
    complete: retentionComplete,
    source: "RetentionQuery",
    draft: retentionDraft
  }),
  stickiness: builder({
    label: "Stickiness",
    initial: INITIAL_STICKINESS,
    Form: StickinessForm,
    query: stickinessQuery,
    complete: () => true,
    source: "StickinessQuery",
    draft: stickinessDraft
  }),
  lifecycle: builder({
    label: "Lifecycle",
    initial: INITIAL_LIFECYCLE,
    Form: LifecycleForm,
    query: lifecycleQuery,
    complete: lifecycleComplete,
    source: "LifecycleQuery",
    draft: lifecycleDraft
  })
}

export type BuilderKind = keyof typeof BUILDERS

/** A stored query as a builder's draft: its kind, the draft, and whether the builder makes the same
 * query again from it (false: the query has parts the builder does not edit, lost on saving). */
export const storedDraft = (query: InsightQuery | null) => {
  const source = query?.source
  const entry = Object.entries(BUILDERS).find(([, { source: kind }]) => kind === source?.kind)
  if (!source || !entry) return undefined
  const [kind, builder] = entry as [BuilderKind, Builder<unknown>]
  const draft = builder.draft(source)
  return { kind, draft, exact: canonical(builder.query(draft)) === canonical(query) }
}
