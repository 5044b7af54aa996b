import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated } from "../api.js"
import { ConditionsEditor } from "../components/ConditionsEditor.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { FieldError, FormError } from "../components/FieldError.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { QuestionsEditor } from "../components/QuestionsEditor.js"
import { SurveyPreview } from "../components/SurveyPreview.js"
import { SurveyResults } from "../components/SurveyResults.js"
import { type Condition, type FeatureFlag, fromDraft, toDraft } from "../flagModel.js"
import { queryClient } from "../queryClient.js"
import {
  type Appearance,
  type Question,
  questionOf,
  type Survey,
  type SurveyConditions,
  SURVEY_TYPES,
  surveyStatus,
  URL_MATCH
} from "../surveyModel.js"

/** A survey as the editor holds it; targeting conditions' values as typed. */
interface Draft {
  readonly name: string
  readonly description: string
  readonly type: keyof typeof SURVEY_TYPES
  readonly questions: ReadonlyArray<Question>
  readonly appearance: Appearance
  readonly conditions: SurveyConditions
  readonly schedule: "once" | "always"
  readonly linked_flag_id: string
  readonly targeting: ReadonlyArray<Condition>
  readonly responses_limit: string
}

const NEW: Draft = {
  name: "",
  description: "",
  type: "popover",
  questions: [questionOf("rating", "How likely are you to recommend us to a friend?")],
  appearance: { submitButtonText: "Submit", thankYouMessageHeader: "Thank you for your feedback!" },
  conditions: {},
  schedule: "once",
  linked_flag_id: "",
  targeting: [],
  responses_limit: ""
}

const draftOf = (survey: Survey): Draft => ({
  name: survey.name,
  description: survey.description,
  type: survey.type === "external_survey" ? "api" : survey.type,
  questions: survey.questions,
  appearance: survey.appearance ?? {},
  conditions: survey.conditions ?? {},
  schedule: survey.schedule ?? "once",
  linked_flag_id: survey.linked_flag_id === null ? "" : String(survey.linked_flag_id),
  targeting: (survey.targeting_flag?.filters.groups ?? []).map((c) => ({
    ...c,
    properties: (c.properties ?? []).map(toDraft)
  })),
  responses_limit: survey.responses_limit === null ? "" : String(survey.responses_limit)
})

/** The body the API takes: no targeting conditions remove the survey's targeting flag. */
const bodyOf = (draft: Draft, survey: Survey | undefined) => ({
  name: draft.name,
  description: draft.description,
  type: draft.type,
  questions: draft.questions.map((q) =>
    q.choices ? { ...q, choices: q.choices.map((c) => c.trim()).filter((c) => c !== "") } : q
  ),
  appearance: draft.appearance,
  conditions: Object.fromEntries(
    Object.entries(draft.conditions).filter(([, value]) => value !== "" && value !== null)
  ),
  schedule: draft.schedule,
  linked_flag_id: draft.linked_flag_id === "" ? null : Number(draft.linked_flag_id),
  responses_limit: draft.responses_limit === "" ? null : Number(draft.responses_limit),
  ...(draft.targeting.length > 0
    ? {
        targeting_flag_filters: {
          groups: draft.targeting.map((c) => ({ ...c, properties: c.properties.map(fromDraft) }))
        }
      }
    : survey?.targeting_flag
      ? { remove_targeting_flag: true }
      : {})
})

const SurveyEditor = ({ id, survey }: { readonly id: string; readonly survey: Survey | undefined }) => {
  const navigate = useNavigate()
  const [draft, setDraft] = useState<Draft>(survey ? draftOf(survey) : NEW)
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }))
  const setAppearance = (patch: Appearance) => set({ appearance: { ...draft.appearance, ...patch } })
  const setConditions = (patch: SurveyConditions) => set({ conditions: { ...draft.conditions, ...patch } })
  const flags = useQuery({
    queryKey: ["path", `/api/projects/${id}/feature_flags/?limit=100`],
    queryFn: () => api<Paginated<FeatureFlag>>(`/api/projects/${id}/feature_flags/?limit=100`)
  })
  const cohorts = useQuery({
    queryKey: ["path", `/api/projects/${id}/cohorts/?limit=100`],
    queryFn: () => api<Paginated<{ id: number; name: string }>>(`/api/projects/${id}/cohorts/?limit=100`),
    select: (page) => Object.fromEntries(page.results.map((c) => [String(c.id), c.name]))
  })
  const saved = (next: Survey) => {
    queryClient.setQueryData(["survey", id, next.id], next)
    void queryClient.invalidateQueries({ queryKey: ["path"] })
  }
  const save = useMutation({
    mutationFn: () =>
      survey
        ? api<Survey>(`/api/projects/${id}/surveys/${survey.id}/`, { method: "PATCH", body: bodyOf(draft, survey) })
        : api<Survey>(`/api/projects/${id}/surveys/`, { method: "POST", body: bodyOf(draft, survey) }),
    onSuccess: (next) => {
      saved(next)
      if (!survey) void navigate({ to: "/project/$id/surveys/$surveyId", params: { id, surveyId: next.id } })
    }
  })
  /** Launch, stop, archive: one field changed. */
  const act = useMutation({
    mutationFn: (patch: Record<string, unknown>) =>
      api<Survey>(`/api/projects/${id}/surveys/${survey!.id}/`, { method: "PATCH", body: patch }),
    onSuccess: saved
  })
  const error = save.error
  const status = survey && surveyStatus(survey)
  const now = () => new Date().toISOString()
  return (
    <div className="columns">
      <InlineForm label="Survey" className="stack" onSubmit={() => save.mutate()}>
        {survey && (
          <div className="toolbar" role="group" aria-label="Survey status">
            <span>
              Status: <strong>{status}</strong>
            </span>
            {status === "Draft" && (
              <button type="button" className="primary" onClick={() => act.mutate({ start_date: now() })}>
                Launch
              </button>
            )}
            {status === "Running" && (
              <button type="button" onClick={() => act.mutate({ end_date: now() })}>
                Stop
              </button>
            )}
            {status === "Completed" && (
              <button type="button" onClick={() => act.mutate({ end_date: null })}>
                Resume
              </button>
            )}
            <button type="button" onClick={() => act.mutate({ archived: !survey.archived })}>
              {survey.archived ? "Unarchive" : "Archive"}
            </button>
          </div>
        )}
        <ErrorAlert error={act.error} />
        <FormError
          error={error}
          attrs={["name", "questions", "conditions", "appearance", "linked_flag_id", "targeting_flag_filters"]}
        />
        <Field label="Name" value={draft.name} onChange={(name) => set({ name })} required />
        <FieldError error={error} attr="name" />
        <Field label="Description" value={draft.description} onChange={(description) => set({ description })} />
        <Choice label="Presentation" value={draft.type} options={SURVEY_TYPES} onChange={(type) => set({ type })} />
        <QuestionsEditor questions={draft.questions} onChange={(questions) => set({ questions })} error={error} />
        <FieldError error={error} attr="questions" exact />
        <fieldset>
          <legend>Appearance</legend>
          <div className="toolbar">
            <Field
              label="Background color"
              value={draft.appearance.backgroundColor ?? ""}
              onChange={(backgroundColor) => setAppearance({ backgroundColor })}
              placeholder="#eeeded"
            />
            <Field
              label="Submit button text"
              value={draft.appearance.submitButtonText ?? ""}
              onChange={(submitButtonText) => setAppearance({ submitButtonText })}
            />
            <Field
              label="Thank you message"
              value={draft.appearance.thankYouMessageHeader ?? ""}
              onChange={(thankYouMessageHeader) => setAppearance({ thankYouMessageHeader })}
            />
          </div>
          <FieldError error={error} attr="appearance" />
        </fieldset>
        <fieldset>
          <legend>Display conditions</legend>
          <div className="toolbar">
            <Choice
              label="URL"
              value={draft.conditions.urlMatchType ?? "icontains"}
              options={URL_MATCH}
              onChange={(urlMatchType) => setConditions({ urlMatchType })}
            />
            <Field
              label="URL value"
              value={draft.conditions.url ?? ""}
              onChange={(url) => setConditions({ url, urlMatchType: draft.conditions.urlMatchType ?? "icontains" })}
              placeholder="/pricing"
            />
            <Field
              label="CSS selector on the page"
              value={draft.conditions.selector ?? ""}
              onChange={(selector) => setConditions({ selector })}
            />
            <Field
              label="Wait days after another survey"
              type="number"
              min={0}
              value={String(draft.conditions.seenSurveyWaitPeriodInDays ?? "")}
              onChange={(days) => setConditions({ seenSurveyWaitPeriodInDays: days === "" ? null : Number(days) })}
            />
          </div>
          <FieldError error={error} attr="conditions" />
        </fieldset>
        <fieldset>
          <legend>Targeting</legend>
          <Choice
            label="Only for people with this flag on"
            value={draft.linked_flag_id}
            options={{
              "": "No linked flag",
              ...Object.fromEntries(
                (flags.data?.results ?? [])
                  .filter((flag) => !flag.key.startsWith("survey-targeting-"))
                  .map((flag) => [String(flag.id), flag.key])
              )
            }}
            onChange={(linked_flag_id) => set({ linked_flag_id })}
          />
          <FieldError error={error} attr="linked_flag_id" />
          <ConditionsEditor
            conditions={draft.targeting}
            onChange={(targeting) => set({ targeting })}
            attr="targeting_flag_filters__groups"
            error={error}
            cohorts={cohorts.data}
          />
          <FieldError error={error} attr="targeting_flag_filters" exact />
        </fieldset>
        <fieldset>
          <legend>Schedule</legend>
          <div className="toolbar">
            <Choice
              label="Show"
              value={draft.schedule}
              options={{ once: "Once per person", always: "Every time the conditions match" }}
              onChange={(schedule) => set({ schedule })}
            />
            <Field
              label="Stop after this many responses"
              type="number"
              min={1}
              value={draft.responses_limit}
              onChange={(responses_limit) => set({ responses_limit })}
            />
          </div>
          <FieldError error={error} attr="responses_limit" />
        </fieldset>
        <button type="submit" className="primary" disabled={save.isPending}>
          {survey ? "Save" : "Create survey"}
        </button>
        {save.isSuccess && survey && <p role="status">Saved.</p>}
      </InlineForm>
      <SurveyPreview questions={draft.questions} appearance={draft.appearance} />
    </div>
  )
}

export const SurveyPage = () => {
  const { id, surveyId } = useParams({ from: "/project/$id/surveys/$surveyId" })
  const isNew = surveyId === "new"
  const survey = useQuery({
    queryKey: ["survey", id, surveyId],
    queryFn: () => api<Survey>(`/api/projects/${id}/surveys/${surveyId}/`),
    enabled: !isNew
  })
  return (
    <Page title={isNew ? "New survey" : (survey.data?.name ?? "Survey")}>
      <Link to="/project/$id/surveys" params={{ id }}>
        All surveys
      </Link>
      <ErrorAlert error={survey.error} />
      {isNew ? (
        <SurveyEditor key="new" id={id} survey={undefined} />
      ) : (
        survey.data && (
          <>
            <SurveyEditor key={survey.data.id} id={id} survey={survey.data} />
            <SurveyResults id={id} surveyId={survey.data.id} questions={survey.data.questions} />
          </>
        )
      )}
    </Page>
  )
}
