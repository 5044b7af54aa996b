import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated } from "../api.js"
import { BLANK_CONDITION, ConditionsEditor } from "../components/ConditionsEditor.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { FieldError, FormError } from "../components/FieldError.js"
import { FlagTester } from "../components/FlagTester.js"
import { FlagUsage } from "../components/FlagUsage.js"
import { Holdouts } from "../components/Holdouts.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { PayloadField, payloadError, payloadText, VariantsEditor } from "../components/VariantsEditor.js"
import {
  type Condition,
  type FeatureFlag,
  fromDraft,
  type GroupType,
  propertiesOfSubject,
  toDraft,
  type Variant
} from "../flagModel.js"
import { queryClient } from "../queryClient.js"

/** A flag as the editor holds it: filters' values as typed, payloads as JSON text. */
interface Draft {
  readonly key: string
  readonly name: string
  readonly active: boolean
  readonly ensure_experience_continuity: boolean
  /** What the flag matches: persons (null), or groups of this type. */
  readonly groupTypeIndex: number | null
  readonly conditions: ReadonlyArray<Condition>
  readonly variants: ReadonlyArray<Variant>
  readonly payloads: Readonly<Record<string, string>>
}

const NEW: Draft = {
  key: "",
  name: "",
  active: true,
  ensure_experience_continuity: false,
  groupTypeIndex: null,
  conditions: [BLANK_CONDITION],
  variants: [],
  payloads: {}
}

const draftOf = (flag: FeatureFlag): Draft => ({
  key: flag.key,
  name: flag.name,
  active: flag.active,
  ensure_experience_continuity: flag.ensure_experience_continuity,
  groupTypeIndex:
    typeof flag.filters["aggregation_group_type_index"] === "number"
      ? flag.filters["aggregation_group_type_index"]
      : null,
  conditions: (flag.filters.groups ?? []).map((c) => ({ ...c, properties: (c.properties ?? []).map(toDraft) })),
  variants: flag.filters.multivariate?.variants ?? [],
  payloads: Object.fromEntries(Object.entries(flag.filters.payloads ?? {}).map(([k, v]) => [k, payloadText(v)]))
})

/** The body the API takes; filters the editor does not show (early access, holdouts) are kept. */
const bodyOf = (draft: Draft, flag: FeatureFlag | undefined) => {
  const payloadKeys = draft.variants.length > 0 ? draft.variants.map((v) => v.key) : ["true"]
  return {
    key: draft.key,
    name: draft.name,
    active: draft.active,
    ensure_experience_continuity: draft.ensure_experience_continuity,
    filters: {
      ...flag?.filters,
      aggregation_group_type_index: draft.groupTypeIndex,
      groups: draft.conditions.map((c) => ({ ...c, properties: c.properties.map(fromDraft) })),
      multivariate: draft.variants.length > 0 ? { variants: draft.variants } : null,
      payloads: Object.fromEntries(
        payloadKeys.flatMap((k) => ((draft.payloads[k] ?? "").trim() === "" ? [] : [[k, draft.payloads[k]!]]))
      )
    }
  }
}

const useNames = (path: string, name: (item: { id: number; [field: string]: unknown }) => string) =>
  useQuery({
    queryKey: ["path", path],
    queryFn: () => api<Paginated<{ id: number; [field: string]: unknown }>>(path),
    select: (page) => Object.fromEntries(page.results.map((item) => [String(item.id), name(item)]))
  }).data

const FlagEditor = ({ id, flag }: { readonly id: string; readonly flag: FeatureFlag | undefined }) => {
  const navigate = useNavigate()
  const [draft, setDraft] = useState<Draft>(flag ? draftOf(flag) : NEW)
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }))
  const cohorts = useNames(`/api/projects/${id}/cohorts/?limit=100`, (c) => String(c["name"]))
  const flags = useNames(`/api/projects/${id}/feature_flags/?limit=100`, (f) => String(f["key"]))
  const groupTypes = useQuery({
    queryKey: ["path", `/api/projects/${id}/groups_types/`],
    queryFn: () => api<ReadonlyArray<GroupType>>(`/api/projects/${id}/groups_types/`)
  }).data
  const matchBy = (value: string) => {
    const groupTypeIndex = value === "" ? null : Number(value)
    set({
      groupTypeIndex,
      conditions: draft.conditions.map((c) => ({ ...c, properties: propertiesOfSubject(c.properties, groupTypeIndex) }))
    })
  }
  const otherFlags = flags && Object.fromEntries(Object.entries(flags).filter(([fid]) => fid !== String(flag?.id)))
  const save = useMutation({
    mutationFn: () =>
      flag
        ? api<FeatureFlag>(`/api/projects/${id}/feature_flags/${flag.id}/`, {
            method: "PATCH",
            body: bodyOf(draft, flag)
          })
        : api<FeatureFlag>(`/api/projects/${id}/feature_flags/`, { method: "POST", body: bodyOf(draft, flag) }),
    onSuccess: (saved) => {
      queryClient.setQueryData(["flag", id, String(saved.id)], saved)
      void queryClient.invalidateQueries({ queryKey: ["path"] })
      if (!flag) void navigate({ to: "/project/$id/feature_flags/$flagId", params: { id, flagId: String(saved.id) } })
    }
  })
  const payloadsValid = Object.values(draft.payloads).every((text) => payloadError(text) === undefined)
  const error = save.error
  return (
    <InlineForm label="Feature flag" className="stack" onSubmit={() => save.mutate()}>
      <FormError error={error} attrs={["key", "name", "filters"]} />
      <Field label="Key" value={draft.key} onChange={(key) => set({ key })} required placeholder="new-checkout" />
      <FieldError error={error} attr="key" />
      <Field label="Description" value={draft.name} onChange={(name) => set({ name })} />
      <FieldError error={error} attr="name" />
      <label className="inline">
        <input type="checkbox" checked={draft.active} onChange={(event) => set({ active: event.target.checked })} />{" "}
        Enabled
      </label>
      <label className="inline">
        <input
          type="checkbox"
          checked={draft.ensure_experience_continuity}
          onChange={(event) => set({ ensure_experience_continuity: event.target.checked })}
        />{" "}
        Persist the value across authentication steps
      </label>
      {((groupTypes?.length ?? 0) > 0 || draft.groupTypeIndex !== null) && (
        <Choice
          label="Match by"
          value={draft.groupTypeIndex === null ? "" : String(draft.groupTypeIndex)}
          options={{
            "": "Persons",
            ...Object.fromEntries(
              (groupTypes ?? []).map((g) => [String(g.group_type_index), `Groups: ${g.group_type}`])
            )
          }}
          onChange={matchBy}
        />
      )}
      <FieldError error={error} attr="filters__aggregation_group_type_index" />
      <ConditionsEditor
        conditions={draft.conditions}
        onChange={(conditions) => set({ conditions })}
        attr="filters__groups"
        error={error}
        variants={draft.variants.map((v) => v.key)}
        cohorts={cohorts}
        flags={otherFlags}
        groupTypeIndex={draft.groupTypeIndex}
      />
      <FieldError error={error} attr="filters__groups" exact />
      <VariantsEditor
        variants={draft.variants}
        payloads={draft.payloads}
        onChange={(variants, payloads) => set({ variants, payloads })}
        error={error}
      />
      {draft.variants.length === 0 && (
        <PayloadField
          label="Payload (JSON)"
          text={draft.payloads["true"] ?? ""}
          onChange={(text) => set({ payloads: { ...draft.payloads, true: text } })}
          error={error}
          attr="filters__payloads"
        />
      )}
      {/* Refusals naming the filters as a whole (a missing cohort, a dependency cycle, a bad split). */}
      <FieldError error={error} attr="filters" exact />
      <button type="submit" className="primary" disabled={save.isPending || !payloadsValid}>
        {flag ? "Save" : "Create flag"}
      </button>
      {save.isSuccess && flag && <p role="status">Saved (version {save.data.version}).</p>}
    </InlineForm>
  )
}

export const FeatureFlagPage = () => {
  const { id, flagId } = useParams({ from: "/project/$id/feature_flags/$flagId" })
  const isNew = flagId === "new"
  const flag = useQuery({
    queryKey: ["flag", id, flagId],
    queryFn: () => api<FeatureFlag>(`/api/projects/${id}/feature_flags/${flagId}/`),
    enabled: !isNew
  })
  return (
    <Page title={isNew ? "New feature flag" : (flag.data?.key ?? "Feature flag")}>
      <Link to="/project/$id/feature_flags" params={{ id }}>
        All feature flags
      </Link>
      <ErrorAlert error={flag.error} />
      {(flag.data?.experiment_set.length ?? 0) > 0 && (
        <p>
          Used by{" "}
          {flag.data!.experiment_set.map((experimentId, i) => (
            <span key={experimentId}>
              {i > 0 && ", "}
              <Link to="/project/$id/experiments/$experimentId" params={{ id, experimentId: String(experimentId) }}>
                experiment {experimentId}
              </Link>
            </span>
          ))}
          .
        </p>
      )}
      {isNew ? (
        <FlagEditor key="new" id={id} flag={undefined} />
      ) : (
        flag.data && (
          <div className="columns">
            <FlagEditor key={flag.data.id} id={id} flag={flag.data} />
            <div className="stack">
              <FlagTester id={id} flagKey={flag.data.key} />
              <FlagUsage id={id} flagKey={flag.data.key} />
              <Holdouts id={id} />
            </div>
          </div>
        )
      )}
    </Page>
  )
}
