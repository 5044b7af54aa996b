import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { uuidv7 } from "@zed/core/storage"
import { ADMIN_KEY, call, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// Survey results on real stores, from survey events as posthog-js sends them: counts of shown,
// dismissed and sent, each question's answers (a submission answered over several events counts
// once, with its latest answers), NPS; and a response limit that stops the survey.

describe.each(["pglite", "postgres"])("%s surveys", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const backend = await backends("surveys-api")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(zed, `/api/environments/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })

  const launch = async (fields: Record<string, unknown>) => {
    const res = await send("POST", "/surveys/", {
      type: "popover",
      start_date: new Date(now - 60_000).toISOString(),
      ...fields
    })
    expect(res.status, res.text).toBe(201)
    return res.json
  }

  /** A survey event as posthog-js captures it, for the person `who`. */
  const now = Date.now()
  const event = (
    survey: { id: string; name: string },
    who: string,
    name: string,
    properties: Record<string, unknown> = {},
    ago = 1000
  ) => ({
    event: name,
    distinct_id: who,
    uuid: uuidv7(),
    timestamp: new Date(now - ago).toISOString(),
    properties: { $survey_id: survey.id, $survey_name: survey.name, ...properties }
  })

  it("counts shown, dismissed and sent, and sums each question's answers with NPS, through ZedQL", async () => {
    const survey = await launch({
      name: "NPS",
      questions: [
        {
          type: "rating",
          question: "How likely are you to recommend us?",
          scale: 10,
          display: "number",
          lowerBoundLabel: "No",
          upperBoundLabel: "Yes"
        },
        { type: "multiple_choice", question: "What do you use?", choices: ["Flags", "Surveys", "Replays"] },
        { type: "single_choice", question: "Role?", choices: ["Engineer", "Designer"], hasOpenChoice: true },
        { type: "open", question: "Anything else?" }
      ]
    })
    const [rating, multiple, single, open] = survey.questions.map((q: { id: string }) => `$survey_response_${q.id}`)
    const answers = (values: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v]))
    await importEvents(zed, PROJECT_KEY, [
      ...["ann", "bob", "cat", "dan", "eve"].map((who) => event(survey, who, "survey shown", {}, 5000)),
      event(survey, "ann", "survey shown", {}, 4000),
      // ann answers over two events of one submission: only the latest counts.
      event(
        survey,
        "ann",
        "survey sent",
        answers({ $survey_submission_id: "s-ann", $survey_completed: false, [rating]: 3 }),
        3000
      ),
      event(
        survey,
        "ann",
        "survey sent",
        answers({
          $survey_submission_id: "s-ann",
          $survey_completed: true,
          [rating]: 10,
          [multiple]: ["Flags", "Replays"],
          [single]: "Engineer",
          [open]: "Great"
        }),
        2000
      ),
      event(
        survey,
        "bob",
        "survey sent",
        answers({ $survey_submission_id: "s-bob", [rating]: 9, [multiple]: ["Flags"], [single]: "Founder" })
      ),
      // An older posthog-js without submission ids, and the legacy key for the first question.
      event(
        survey,
        "cat",
        "survey sent",
        answers({ $survey_response: 2, [multiple]: ["Surveys"], [single]: "Engineer", [open]: "Slow" })
      ),
      event(survey, "dan", "survey dismissed", { $survey_partially_completed: false }),
      // Another survey's events do not count.
      event({ id: uuidv7(), name: "Other" }, "eve", "survey sent", { [rating]: 1 })
    ])
    const res = await send("GET", `/surveys/${survey.id}/stats/`)
    expect(res.status, res.text).toBe(200)
    const { questions, rates, stats } = res.json
    expect(res.json).toMatchObject({ survey_id: survey.id, start_date: survey.start_date, end_date: null })
    expect(stats["survey shown"]).toMatchObject({
      total_count: 6,
      unique_persons: 5,
      first_seen: expect.any(String),
      last_seen: expect.any(String)
    })
    expect(stats["survey sent"]).toMatchObject({ total_count: 3, unique_persons: 3 })
    expect(stats["survey dismissed"]).toMatchObject({ total_count: 1, unique_persons: 1 })
    expect(rates).toEqual({
      response_rate: 50,
      dismissal_rate: 16.67,
      unique_users_response_rate: 60,
      unique_users_dismissal_rate: 20
    })

    const byId = new Map(questions.map((q: { id: string }) => [q.id, q]))
    const counts = (q: { results: Array<{ value: string; count: number }> }) =>
      Object.fromEntries(q.results.map((r) => [r.value, r.count]))
    const [qRating, qMultiple, qSingle, qOpen] = survey.questions.map((q: { id: string }) =>
      byId.get(q.id)
    ) as Array<any>
    expect(qRating).toMatchObject({
      type: "rating",
      response_count: 3,
      average: 7,
      nps: { promoters: 2, passives: 0, detractors: 1, score: 33 }
    })
    expect(counts(qRating)).toEqual({ "10": 1, "9": 1, "2": 1 })
    expect(qMultiple.response_count).toBe(3)
    expect(counts(qMultiple)).toEqual({ Flags: 2, Replays: 1, Surveys: 1 })
    expect(counts(qSingle)).toEqual({ Engineer: 2, Founder: 1 })
    expect(qOpen.response_count).toBe(2)
    expect(qOpen.nps).toBeUndefined()
    expect(counts(qOpen)).toEqual({ Great: 1, Slow: 1 })

    // A range that ends before the answers: nothing sent.
    const early = await send(
      "GET",
      `/surveys/${survey.id}/stats/?date_to=${encodeURIComponent(new Date(now - 4500).toISOString())}`
    )
    expect(early.json.stats["survey sent"].total_count).toBe(0)
    expect(early.json.stats["survey shown"].total_count).toBe(5)
    const wrong = await send(
      "GET",
      `/surveys/${survey.id}/stats/?date_from=2030-01-02T00:00:00Z&date_to=2030-01-01T00:00:00Z`
    )
    expect(wrong.status).toBe(400)
    expect(wrong.json).toMatchObject({ type: "validation_error", attr: "date_from" })
  })

  it("stops a survey that reached its response limit, and turns its flags off", async () => {
    const under = await launch({
      name: "Under its limit",
      responses_limit: 2,
      questions: [{ type: "open", question: "Why?" }]
    })
    const reached = await launch({
      name: "At its limit",
      responses_limit: 2,
      questions: [{ type: "open", question: "Why?" }]
    })
    const answer = (survey: { questions: Array<{ id: string }> }) => ({
      [`$survey_response_${survey.questions[0]!.id}`]: "because"
    })
    await importEvents(zed, PROJECT_KEY, [
      // Two events of one submission are one response.
      event(under, "b", "survey sent", { ...answer(under), $survey_submission_id: "b-1" }),
      event(under, "b", "survey sent", { ...answer(under), $survey_submission_id: "b-1" }),
      ...["a", "b"].map((who) => event(reached, who, "survey sent", answer(reached)))
    ])
    const surveys = (await call(zed, `/api/surveys/?token=${PROJECT_KEY}`, { key: null })).json.surveys
    const shown = (survey: { id: string }) => surveys.find((s: { id: string }) => s.id === survey.id)
    expect(shown(under).end_date).toBeNull()
    expect(shown(reached).end_date).not.toBeNull()
    const stored = (await send("GET", `/surveys/${reached.id}/`)).json
    expect(stored.end_date).toBe(shown(reached).end_date)
    expect(stored.internal_targeting_flag.active).toBe(false)
    expect((await send("GET", `/surveys/${under.id}/`)).json).toMatchObject({
      end_date: null,
      internal_targeting_flag: { active: true }
    })
  })
})
