import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated } from "../api.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { FieldError, FormError } from "../components/FieldError.js"
import { domainOf, IntervalBar } from "../components/IntervalBar.js"
import { ItemList } from "../components/ItemList.js"
import { Holdouts, holdoutsPath } from "../components/Holdouts.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { SampleSize } from "../components/SampleSize.js"
import { SplitTotal, VariantFields } from "../components/VariantsEditor.js"
import {
  blankMetric,
  describeMetric,
  type Experiment,
  type ExperimentResults,
  type Holdout,
  METRIC_KINDS,
  type MetricDraft,
  type MetricResult,
  metricOf,
  percent,
  type Variant
} from "../experimentModel.js"
import { queryClient } from "../queryClient.js"
import { useList } from "../queries.js"
import { day } from "./Experiments.js"

const base = (id: string) => `/api/projects/${id}/experiments/`

/** A metric's fields: its kind, its events and, by kind, the property summed or the denominator. */
const MetricFields = ({
  label,
  metric,
  set
}: {
  readonly label: string
  readonly metric: MetricDraft
  readonly set: (metric: MetricDraft) => void
}) => (
  <div className="stack">
    <Choice
      label={`${label}: kind`}
      value={metric.kind}
      options={METRIC_KINDS}
      onChange={(kind) => set({ ...metric, kind })}
    />
    {metric.kind === "funnel" ? (
      <label>
        {`${label}: steps (one event a line)`}
        <textarea rows={2} value={metric.events} onChange={(event) => set({ ...metric, events: event.target.value })} />
      </label>
    ) : (
      <Field
        label={metric.kind === "ratio" ? `${label}: numerator event` : `${label}: event`}
        value={metric.events}
        onChange={(events) => set({ ...metric, events })}
      />
    )}
    {metric.kind === "sum" && (
      <Field
        label={`${label}: property`}
        value={metric.property}
        onChange={(property) => set({ ...metric, property })}
      />
    )}
    {metric.kind === "ratio" && (
      <Field
        label={`${label}: denominator event`}
        value={metric.denominator}
        onChange={(denominator) => set({ ...metric, denominator })}
      />
    )}
  </div>
)

const MetricsEditor = ({
  legend,
  field,
  metrics,
  onChange,
  error
}: {
  readonly legend: string
  readonly field: string
  readonly metrics: ReadonlyArray<MetricDraft>
  readonly onChange: (metrics: ReadonlyArray<MetricDraft>) => void
  readonly error: unknown
}) => (
  <ItemList legend={legend} noun="metric" items={metrics} min={0} blank={blankMetric} onChange={onChange}>
    {(metric, i, set) => (
      <>
        <MetricFields label={`${legend} ${i + 1}`} metric={metric} set={set} />
        <FieldError error={error} attr={`${field}__${i}`} />
      </>
    )}
  </ItemList>
)

interface Draft {
  readonly name: string
  readonly hypothesis: string
  readonly description: string
  readonly flagKey: string
  readonly variants: ReadonlyArray<Variant>
  readonly holdout: string
  readonly metrics: ReadonlyArray<MetricDraft>
  readonly secondary: ReadonlyArray<MetricDraft>
}

const NEW: Draft = {
  name: "",
  hypothesis: "",
  description: "",
  flagKey: "",
  variants: [
    { key: "control", rollout_percentage: 50 },
    { key: "test", rollout_percentage: 50 }
  ],
  holdout: "",
  metrics: [blankMetric],
  secondary: []
}

const NewExperiment = ({ id }: { readonly id: string }) => {
  const navigate = useNavigate()
  const [draft, setDraft] = useState<Draft>(NEW)
  const flags = useQuery({
    queryKey: ["path", `/api/projects/${id}/feature_flags/?limit=100`],
    queryFn: () => api<Paginated<{ key: string }>>(`/api/projects/${id}/feature_flags/?limit=100`)
  })
  const holdouts = useList<Holdout>(holdoutsPath(id))
  const existing = (flags.data?.results ?? []).some((f) => f.key === draft.flagKey)
  const create = useMutation({
    mutationFn: () =>
      api<Experiment>(base(id), {
        method: "POST",
        body: {
          name: draft.name,
          hypothesis: draft.hypothesis.trim() === "" ? null : draft.hypothesis,
          description: draft.description,
          feature_flag_key: draft.flagKey,
          // An existing flag brings its own variants.
          ...(existing ? {} : { parameters: { feature_flag_variants: draft.variants } }),
          holdout_id: draft.holdout === "" ? null : Number(draft.holdout),
          metrics: draft.metrics.map(metricOf),
          metrics_secondary: draft.secondary.map(metricOf)
        }
      }),
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: ["path"] })
      void navigate({
        to: "/project/$id/experiments/$experimentId",
        params: { id, experimentId: String(created.id) }
      })
    }
  })
  // An edit answers the refusal it was made for: the refusal goes.
  const set = (patch: Partial<Draft>) => {
    create.reset()
    setDraft((current) => ({ ...current, ...patch }))
  }
  const error = create.error
  return (
    <Page title="New experiment">
      <InlineForm label="Experiment" className="stack" onSubmit={() => create.mutate()}>
        <FormError
          error={error}
          attrs={["name", "feature_flag_key", "parameters", "holdout_id", "metrics", "metrics_secondary"]}
        />
        <Field label="Name" value={draft.name} onChange={(name) => set({ name })} required />
        <FieldError error={error} attr="name" />
        <label>
          Hypothesis
          <textarea
            rows={2}
            value={draft.hypothesis}
            placeholder="A shorter pricing page sells more plans"
            onChange={(event) => set({ hypothesis: event.target.value })}
          />
        </label>
        <Field label="Description" value={draft.description} onChange={(description) => set({ description })} />
        <Field
          label="Feature flag key"
          value={draft.flagKey}
          onChange={(flagKey) => set({ flagKey })}
          list="experiment-flags"
          required
        />
        <datalist id="experiment-flags">
          {(flags.data?.results ?? []).map((f) => (
            <option key={f.key} value={f.key} />
          ))}
        </datalist>
        <p className="muted">
          {existing ? "An existing flag: its variants are the experiment's." : "A new flag, made with these variants."}
        </p>
        <FieldError error={error} attr="feature_flag_key" />
        {!existing && (
          <>
            <ItemList
              legend="Variants"
              noun="variant"
              items={draft.variants}
              min={2}
              blank={{ key: `test-${draft.variants.length}`, rollout_percentage: 0 }}
              onChange={(variants) => set({ variants })}
            >
              {(variant, i, setVariant) => (
                <VariantFields
                  index={i}
                  variant={variant}
                  onKey={(key) => setVariant({ ...variant, key })}
                  onSplit={(rollout_percentage) => setVariant({ ...variant, rollout_percentage })}
                />
              )}
            </ItemList>
            <SplitTotal variants={draft.variants} />
            <FieldError error={error} attr="parameters" />
          </>
        )}
        <Choice
          label="Holdout"
          value={draft.holdout}
          options={{
            "": "No holdout",
            ...Object.fromEntries(
              (holdouts.data?.results ?? []).map((h) => [
                String(h.id),
                `${h.name} (${h.filters[0]?.rollout_percentage ?? 0}%)`
              ])
            )
          }}
          onChange={(holdout) => set({ holdout })}
        />
        <FieldError error={error} attr="holdout_id" />
        <MetricsEditor
          legend="Primary metric"
          field="metrics"
          metrics={draft.metrics}
          onChange={(metrics) => set({ metrics })}
          error={error}
        />
        <MetricsEditor
          legend="Secondary metric"
          field="metrics_secondary"
          metrics={draft.secondary}
          onChange={(secondary) => set({ secondary })}
          error={error}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create experiment
        </button>
      </InlineForm>
    </Page>
  )
}

/** One metric's results: a row per variant, the effect's intervals drawn on one scale. */
const MetricResults = ({ title, result }: { readonly title: string; readonly result: MetricResult }) => {
  const variants = result.results.variants
  const intervals = variants.flatMap((v) => [
    ...(v.bayesian.credible_interval ? [v.bayesian.credible_interval] : []),
    ...(v.frequentist?.relative_interval ? [v.frequentist.relative_interval] : [])
  ])
  const domain = domainOf(intervals)
  const srm = result.results.sample_ratio_mismatch
  const proportion = result.results.model === "proportion"
  return (
    <section className="stack" aria-label={title}>
      <h3>{title}</h3>
      {srm.mismatch && (
        <p role="alert" className="error">
          Sample-ratio mismatch (p = {srm.p_value.toPrecision(2)}): exposures do not follow the planned split. Find what
          loses people of one variant before trusting these results.
        </p>
      )}
      {result.results.multiple_variant_persons > 0 && (
        <p className="muted">{result.results.multiple_variant_persons} persons saw more than one variant.</p>
      )}
      <div className="table-scroll">
        <table className="list" aria-label={`${title}: results`}>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Exposures</th>
              <th scope="col">{proportion ? "Conversion" : "Value"}</th>
              <th scope="col">Chance to win</th>
              <th scope="col">Credible interval</th>
              <th scope="col">Confidence interval</th>
              <th scope="col">p-value</th>
              <th scope="col">Significant</th>
            </tr>
          </thead>
          <tbody>
            {variants.map((v) => (
              <tr key={v.key}>
                <th scope="row">{v.key}</th>
                <td className="number">{v.exposures}</td>
                <td className="number">{proportion ? percent(v.estimate) : (v.estimate?.toFixed(3) ?? "—")}</td>
                <td className="number">{percent(v.bayesian.chance_to_win)}</td>
                <td>
                  {v.bayesian.credible_interval ? (
                    <IntervalBar interval={v.bayesian.credible_interval} domain={domain} />
                  ) : (
                    "baseline"
                  )}
                </td>
                <td>
                  {v.frequentist?.relative_interval ? (
                    <IntervalBar interval={v.frequentist.relative_interval} domain={domain} />
                  ) : (
                    "baseline"
                  )}
                </td>
                <td className="number">{v.frequentist ? v.frequentist.adjusted_p_value.toPrecision(3) : "—"}</td>
                <td>{v.frequentist ? (v.frequentist.significant ? "Yes" : "No") : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}

const Results = ({ id, experiment }: { readonly id: string; readonly experiment: Experiment }) => {
  const results = useQuery({
    queryKey: ["experiment-results", id, experiment.id, experiment.end_date],
    queryFn: () => api<ExperimentResults>(`${base(id)}${experiment.id}/results/?refresh=blocking`)
  })
  return (
    <section aria-labelledby="results" className="stack">
      <h2 id="results">Results</h2>
      <ErrorAlert error={results.error} />
      {results.isPending && <p className="muted">Computing…</p>}
      {results.data?.primary.map((r, i) => (
        <MetricResults key={`p${i}`} title={`Primary: ${describeMetric(experiment.metrics[i])}`} result={r} />
      ))}
      {results.data?.secondary.map((r, i) => (
        <MetricResults
          key={`s${i}`}
          title={`Secondary: ${describeMetric(experiment.metrics_secondary[i])}`}
          result={r}
        />
      ))}
      {results.data && results.data.primary.length + results.data.secondary.length === 0 && (
        <p className="muted">No metrics yet.</p>
      )}
    </section>
  )
}

const STATUS = { draft: "Draft", running: "Running", stopped: "Stopped" } as const

const ExperimentView = ({ id, experiment }: { readonly id: string; readonly experiment: Experiment }) => {
  const variants = experiment.parameters.feature_flag_variants ?? []
  const [shipped, setShipped] = useState(variants.find((v) => v.key !== "control")?.key ?? "control")
  const saved = (next: Experiment) => {
    queryClient.setQueryData(["experiment", id, String(next.id)], next)
    void queryClient.invalidateQueries({ queryKey: ["path"] })
  }
  const act = useMutation({
    mutationFn: (patch: Record<string, unknown>) =>
      api<Experiment>(`${base(id)}${experiment.id}/`, { method: "PATCH", body: patch }),
    onSuccess: saved
  })
  const ship = useMutation({
    mutationFn: () =>
      api<Experiment>(`${base(id)}${experiment.id}/ship_variant/`, { method: "POST", body: { variant_key: shipped } }),
    onSuccess: saved
  })
  const now = () => new Date().toISOString()
  return (
    <Page title={experiment.name}>
      <div className="toolbar" role="group" aria-label="Experiment status">
        <span>
          Status: <strong>{STATUS[experiment.status]}</strong>
          {experiment.archived && " (archived)"}
        </span>
        {experiment.status === "draft" && (
          <button type="button" className="primary" onClick={() => act.mutate({ start_date: now() })}>
            Launch
          </button>
        )}
        {experiment.status === "running" && (
          <button type="button" onClick={() => act.mutate({ end_date: now() })}>
            Stop
          </button>
        )}
        {experiment.status !== "draft" && experiment.conclusion === null && (
          <>
            <Choice
              label="Variant to ship"
              value={shipped}
              options={Object.fromEntries(variants.map((v) => [v.key, v.key]))}
              onChange={setShipped}
            />
            <button type="button" onClick={() => ship.mutate()}>
              Ship variant
            </button>
          </>
        )}
        {experiment.status !== "running" && !experiment.archived && (
          <button type="button" onClick={() => act.mutate({ archived: true })}>
            Archive
          </button>
        )}
      </div>
      <ErrorAlert error={act.error ?? ship.error} />
      <dl className="facts">
        <dt>Hypothesis</dt>
        <dd>{experiment.hypothesis ?? "—"}</dd>
        {experiment.description !== "" && (
          <>
            <dt>Description</dt>
            <dd>{experiment.description}</dd>
          </>
        )}
        <dt>Feature flag</dt>
        <dd>
          {experiment.feature_flag ? (
            <Link to="/project/$id/feature_flags/$flagId" params={{ id, flagId: String(experiment.feature_flag.id) }}>
              {experiment.feature_flag_key}
            </Link>
          ) : (
            experiment.feature_flag_key
          )}
        </dd>
        <dt>Variants</dt>
        <dd>{variants.map((v) => `${v.key} ${v.rollout_percentage}%`).join(", ")}</dd>
        {experiment.holdout && (
          <>
            <dt>Holdout</dt>
            <dd>
              {experiment.holdout.name}: {experiment.holdout.filters[0]?.rollout_percentage ?? 0}% get holdout-
              {experiment.holdout.id}
            </dd>
          </>
        )}
        <dt>Dates</dt>
        <dd>
          {day(experiment.start_date)} – {day(experiment.end_date)}
        </dd>
        {experiment.conclusion !== null && (
          <>
            <dt>Conclusion</dt>
            <dd>{experiment.conclusion}</dd>
          </>
        )}
      </dl>
      {experiment.status === "draft" ? (
        <p className="muted">Launch the experiment to see results.</p>
      ) : (
        <Results id={id} experiment={experiment} />
      )}
      <SampleSize id={id} variants={Math.max(2, variants.length)} />
    </Page>
  )
}

export const ExperimentPage = () => {
  const { id, experimentId } = useParams({ from: "/project/$id/experiments/$experimentId" })
  const experiment = useQuery({
    queryKey: ["experiment", id, experimentId],
    queryFn: () => api<Experiment>(`${base(id)}${experimentId}/`),
    enabled: experimentId !== "new"
  })
  if (experimentId === "new") return <NewExperiment id={id} />
  if (experiment.error) return <ErrorAlert error={experiment.error} />
  return experiment.data ? <ExperimentView id={id} experiment={experiment.data} /> : <p className="muted">Loading…</p>
}
