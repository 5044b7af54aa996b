import { useMutation } from "@tanstack/react-query"
import { useState } from "react"
import { api } from "../api.js"
import type { Holdout } from "../experimentModel.js"
import { queryClient } from "../queryClient.js"
import { useList } from "../queries.js"
import { Field, InlineForm } from "./Field.js"
import { FieldError, FormError } from "./FieldError.js"
import { ErrorAlert } from "./Page.js"

// The project's experiment holdouts (`…/experiment_holdouts/`): a share of persons kept out of every
// experiment that uses the holdout (they get `holdout-<id>` from its flag). Made and edited here, on
// the experiments and flag pages; an experiment picks one while it is a draft. Deleting one a started
// experiment uses is refused by the API, and the refusal shown.

export const holdoutsPath = (id: string) => `/api/projects/${id}/experiment_holdouts/?limit=100`

const shareOf = (holdout: Holdout) => holdout.filters[0]?.rollout_percentage ?? 0

/** One holdout's name and share, made (no `holdout`) or edited; the API's refusals beside the fields. */
const HoldoutForm = ({ id, holdout }: { readonly id: string; readonly holdout: Holdout | undefined }) => {
  const label = holdout ? `Holdout ${holdout.id}` : "New holdout"
  const [name, setName] = useState(holdout?.name ?? "")
  const [share, setShare] = useState(holdout ? String(shareOf(holdout)) : "10")
  const save = useMutation({
    mutationFn: () => {
      const body = { name, filters: [{ properties: [], rollout_percentage: Number(share) }] }
      return holdout
        ? api<Holdout>(`/api/projects/${id}/experiment_holdouts/${holdout.id}/`, { method: "PATCH", body })
        : api<Holdout>(`/api/projects/${id}/experiment_holdouts/`, { method: "POST", body })
    },
    onSuccess: () => {
      // The lists of holdouts, experiments' choice of one included, and flags that follow a share.
      void queryClient.invalidateQueries({ queryKey: ["path"] })
      void queryClient.invalidateQueries({ queryKey: ["flag"] })
      if (!holdout) {
        setName("")
        setShare("10")
      }
    }
  })
  const remove = useMutation({
    mutationFn: () => api(`/api/projects/${id}/experiment_holdouts/${holdout!.id}/`, { method: "DELETE" }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["path"] })
      void queryClient.invalidateQueries({ queryKey: ["flag"] })
    }
  })
  const error = save.error
  return (
    <InlineForm label={label} className="stack" onSubmit={() => save.mutate()}>
      <FormError error={error} attrs={["name", "filters"]} />
      <Field label={`${label}: name`} value={name} onChange={setName} />
      <FieldError error={error} attr="name" />
      <Field label={`${label}: share held out %`} type="number" step="any" value={share} onChange={setShare} required />
      <FieldError error={error} attr="filters" />
      {holdout && (
        <p className="muted">
          Held-out persons get <code>holdout-{holdout.id}</code>.
        </p>
      )}
      <button type="submit" disabled={save.isPending}>
        {holdout ? `Save holdout ${holdout.id}` : "Create holdout"}
      </button>
      {holdout && (
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() =>
            confirm(`Delete the holdout "${holdout.name}"? Draft experiments using it lose it.`) && remove.mutate()
          }
        >
          Delete holdout {holdout.id}
        </button>
      )}
      {save.isSuccess && holdout && <p role="status">Saved.</p>}
      <ErrorAlert error={remove.error} />
    </InlineForm>
  )
}

export const Holdouts = ({ id }: { readonly id: string }) => {
  const holdouts = useList<Holdout>(holdoutsPath(id))
  return (
    <section className="card stack" aria-labelledby="holdouts">
      <h2 id="holdouts">Holdouts</h2>
      <p className="muted">A share of persons kept out of every experiment that uses the holdout.</p>
      <ErrorAlert error={holdouts.error} />
      {(holdouts.data?.results ?? []).map((holdout) => (
        <HoldoutForm key={holdout.id} id={id} holdout={holdout} />
      ))}
      <HoldoutForm id={id} holdout={undefined} />
    </section>
  )
}
