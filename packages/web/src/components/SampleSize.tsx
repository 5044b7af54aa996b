import { useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { api, withQuery } from "../api.js"
import { Field, InlineForm } from "./Field.js"
import { ErrorAlert } from "./Page.js"

interface Plan {
  readonly per_variant: number
  readonly total: number
  readonly days: number | null
}

/** The API's sample-size calculator: persons per variant and days to detect a relative change. */
export const SampleSize = ({ id, variants }: { readonly id: string; readonly variants: number }) => {
  const [baseline, setBaseline] = useState("10")
  const [effect, setEffect] = useState("20")
  const [daily, setDaily] = useState("1000")
  const [asked, setAsked] = useState<string | undefined>(undefined)
  const plan = useQuery({
    queryKey: ["path", asked],
    queryFn: () => api<Plan>(asked!),
    enabled: asked !== undefined
  })
  return (
    <section aria-labelledby="sample-size" className="stack">
      <h2 id="sample-size">Sample size</h2>
      <InlineForm
        label="Sample size"
        onSubmit={() =>
          setAsked(
            withQuery(`/api/projects/${id}/experiments/sample_size/`, {
              baseline_rate: Number(baseline) / 100,
              minimum_detectable_effect: effect,
              variants,
              daily_exposures: daily
            })
          )
        }
      >
        <Field
          label="Baseline conversion %"
          type="number"
          min={0}
          max={100}
          step="any"
          value={baseline}
          onChange={setBaseline}
        />
        <Field
          label="Minimum detectable effect %"
          type="number"
          min={0}
          step="any"
          value={effect}
          onChange={setEffect}
        />
        <Field label="Exposures a day" type="number" min={1} value={daily} onChange={setDaily} />
        <button type="submit">Calculate</button>
      </InlineForm>
      <ErrorAlert error={plan.error} />
      {plan.data && (
        <p role="status">
          <strong>{plan.data.per_variant.toLocaleString()}</strong> persons a variant,{" "}
          {plan.data.total.toLocaleString()} in all
          {plan.data.days !== null && <>, about {plan.data.days} days</>}.
        </p>
      )}
    </section>
  )
}
