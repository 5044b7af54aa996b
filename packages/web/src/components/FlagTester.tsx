import { useMutation, useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { api, type Project } from "../api.js"
import { Field, InlineForm } from "./Field.js"
import { ErrorAlert } from "./Page.js"
import { PayloadField, payloadError } from "./VariantsEditor.js"

/** One flag in a `/flags/?v=2` answer. */
interface Evaluated {
  readonly enabled: boolean
  readonly variant?: string | null
  readonly reason?: { readonly code: string; readonly description?: string | null } | null
  readonly metadata?: { readonly payload?: unknown } | null
}

/** "Test this flag": asks `/flags` (as the SDKs do, with the project's API key) for a distinct id,
 * with person properties overriding the stored ones if given, and shows the value and the reason. */
export const FlagTester = ({ id, flagKey }: { readonly id: string; readonly flagKey: string }) => {
  const project = useQuery({ queryKey: ["project", id], queryFn: () => api<Project>(`/api/projects/${id}/`) })
  const [distinctId, setDistinctId] = useState("")
  const [overrides, setOverrides] = useState("")
  const evaluate = useMutation({
    mutationFn: async () => {
      const answer = await api<{ readonly flags: Readonly<Record<string, Evaluated>> }>("/flags/?v=2", {
        method: "POST",
        body: {
          token: project.data!.api_token,
          distinct_id: distinctId,
          ...(overrides.trim() === "" ? {} : { person_properties: JSON.parse(overrides) })
        }
      })
      return answer.flags[flagKey]
    }
  })
  const result = evaluate.data
  return (
    <section className="card" aria-labelledby="flag-test">
      <h2 id="flag-test">Test this flag</h2>
      <InlineForm label="Test this flag" onSubmit={() => evaluate.mutate()}>
        <Field label="Distinct id" value={distinctId} onChange={setDistinctId} required />
        <PayloadField
          label="Person properties (JSON, optional)"
          text={overrides}
          onChange={setOverrides}
          error={undefined}
          attr="person_properties"
          placeholder='{"plan": "pro"}'
        />
        <button
          type="submit"
          disabled={project.data === undefined || distinctId === "" || payloadError(overrides) !== undefined}
        >
          Evaluate
        </button>
      </InlineForm>
      <ErrorAlert error={evaluate.error ?? project.error} />
      {evaluate.isSuccess && (
        <dl className="evaluation" aria-label="Evaluation">
          <dt>Value</dt>
          <dd data-testid="flag-value">
            {result === undefined ? "not evaluated" : String(result.variant ?? result.enabled)}
          </dd>
          <dt>Reason</dt>
          <dd>{result?.reason?.description ?? result?.reason?.code ?? "—"}</dd>
          {result?.metadata?.payload !== undefined && result.metadata.payload !== null && (
            <>
              <dt>Payload</dt>
              <dd>
                <code>{String(result.metadata.payload)}</code>
              </dd>
            </>
          )}
        </dl>
      )}
    </section>
  )
}
