import type { ComponentType } from "react"
import type { InsightQuery } from "./api.js"
import { FunnelForm, funnelComplete, funnelsQuery, INITIAL_FUNNEL } from "./components/FunnelForm.js"
import { INITIAL_LIFECYCLE, LifecycleForm, lifecycleComplete, lifecycleQuery } from "./components/LifecycleForm.js"
import { INITIAL_RETENTION, RetentionForm, retentionComplete, retentionQuery } from "./components/RetentionForm.js"
import { INITIAL_STICKINESS, StickinessForm, stickinessQuery } from "./components/StickinessForm.js"
import { INITIAL_TRENDS, TrendsForm, trendsComplete, trendsQuery } from "./components/TrendsForm.js"
import type { DraftFormProps } from "./insightDraft.js"

// The insight builder's kinds: each one's form, its first draft, the query node a draft makes, and
// whether that node can be computed yet.

export interface Builder<D> {
  readonly label: string
  readonly initial: D
  readonly Form: ComponentType<DraftFormProps<D>>
  readonly query: (draft: D) => InsightQuery
  readonly complete: (draft: D) => boolean
}

const builder = <D>(spec: Builder<D>): Builder<D> => spec

export const BUILDERS = {
  trends: builder({
    label: "Trends",
    initial: INITIAL_TRENDS,
    Form: TrendsForm,
    query: trendsQuery,
    complete: trendsComplete
  }),
  funnel: builder({
    label: "Funnel",
    initial: INITIAL_FUNNEL,
    Form: FunnelForm,
    query: funnelsQuery,
    complete: funnelComplete
  }),
  retention: builder({
    label: "Retention",
    initial: INITIAL_RETENTION,
    Form: RetentionForm,
    query: retentionQuery,
    complete: retentionComplete
  }),
  stickiness: builder({
    label: "Stickiness",
    initial: INITIAL_STICKINESS,
    Form: StickinessForm,
    query: stickinessQuery,
    complete: () => true
  }),
  lifecycle: builder({
    label: "Lifecycle",
    initial: INITIAL_LIFECYCLE,
    Form: LifecycleForm,
    query: lifecycleQuery,
    complete: lifecycleComplete
  })
}

export type BuilderKind = keyof typeof BUILDERS
