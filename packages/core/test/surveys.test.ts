import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { Zed } from "../src/index.js"
import { call, memoryZed, PROJECT_KEY } from "./support.js"

// The surveys API on in-memory storage: what is stored from each kind of question and condition,
// the flags a survey gets, what posthog-js is shown (and when), and the 400s for bad input.

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const send = (method: string, path: string, body?: unknown) =>
  call(zed, `/api/projects/1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) })

const publicSurveys = (token = PROJECT_KEY) =>
  call(zed, `/api/surveys/?token=${encodeURIComponent(token)}`, {
    key: null,
    headers: { origin: "https://shop.example" }
  })

let made = 0
/** A valid survey body, named afresh each time (names are unique per project). */
const survey = (fields: Record<string, unknown> = {}) => ({
  name: `Survey ${++made}`,
  type: "popover",
  questions: [{ type: "open", question: "What brought you here?" }],
  ...fields
})

const QUESTIONS = [
  {
    type: "open",
    question: "Anything else?",
    validation: [
      { type: "min_length", value: 2 },
      { type: "max_length", value: 500 }
    ]
  },
  { type: "link", question: "Read our guide", link: "https://example.com/guide", buttonText: "Open" },
  {
    type: "rating",
    question: "How likely are you to recommend us?",
    display: "number",
    scale: 10,
    lowerBoundLabel: "Unlikely",
    upperBoundLabel: "Very likely",
    branching: { type: "response_based", responseValues: { detractors: 4, promoters: "end" } }
  },
  {
    type: "single_choice",
    question: "Your role?",
    choices: ["Engineer", "Designer", "Other"],
    hasOpenChoice: true,
    branching: { type: "specific_question", index: 4 }
  },
  {
    type: "multiple_choice",
    question: "What do you use?",
    choices: ["Flags", "Surveys", "Replays"],
    shuffleOptions: true,
    translations: { fr: { question: "Qu'utilisez-vous ?" } }
  }
]

const CONDITIONS = {
  url: "/pricing",
  urlMatchType: "icontains",
  selector: "#buy",
  seenSurveyWaitPeriodInDays: 14,
  events: {
    repeatedActivation: true,
    values: [{ name: "checkout_started", propertyFilters: { plan: { values: ["pro"], operator: "exact" } } }]
  },
  deviceTypes: ["Desktop", "Tablet"],
  deviceTypesMatchType: "exact"
}

describe("surveys", () => {
  it("stores every question type, conditions and appearance, with ids, and makes its internal targeting flag", async () => {
    const created = await send(
      "POST",
      "/surveys/",
      survey({
        description: "internal note",
        questions: QUESTIONS,
        conditions: CONDITIONS,
        appearance: {
          backgroundColor: "#eeeded",
          position: "right",
          thankYouMessageHeader: "Thanks!",
          surveyPopupDelaySeconds: 2,
          whiteLabel: true
        },
        targeting_flag_filters: {
          groups: [
            {
              properties: [{ key: "email", type: "person", operator: "icontains", value: "@acme.com" }],
              rollout_percentage: 100
            }
          ]
        },
        responses_limit: 50
      })
    )
    expect(created.status, created.text).toBe(201)
    const body = created.json
    expect(body.questions.map((q: { type: string }) => q.type)).toEqual(QUESTIONS.map((q) => q.type))
    for (const [i, q] of body.questions.entries()) expect(q).toEqual({ ...QUESTIONS[i], id: expect.any(String) })
    expect(new Set(body.questions.map((q: { id: string }) => q.id)).size).toBe(QUESTIONS.length)
    expect(body).toMatchObject({
      conditions: CONDITIONS,
      appearance: { position: "right", whiteLabel: true },
      responses_limit: 50,
      archived: false,
      start_date: null,
      end_date: null
    })
    // Not launched: its flags exist, off.
    expect(body.targeting_flag).toMatchObject({
      key: expect.stringMatching(/^survey-targeting-[0-9a-f]{10}$/),
      active: false
    })
    expect(body.targeting_flag.filters.groups[0].properties[0]).toMatchObject({ key: "email", value: "@acme.com" })
    expect(body.internal_targeting_flag).toMatchObject({
      key: expect.stringMatching(/^survey-targeting-[0-9a-f]{10}-custom$/),
      active: false
    })
    const [keys] = [
      body.internal_targeting_flag.filters.groups.flatMap((g: { properties: Array<{ key: string }> }) =>
        g.properties.map((p) => p.key)
      )
    ]
    expect(keys).toEqual(
      expect.arrayContaining([`$survey_dismissed/${body.id}`, `$survey_responded/${body.id}`, "$survey_last_seen_date"])
    )
    expect(body.feature_flag_keys).toEqual([
      { key: "linked_flag_key", value: null },
      { key: "targeting_flag_key", value: body.targeting_flag.key },
      { key: "internal_targeting_flag_key", value: body.internal_targeting_flag.key }
    ])
    // The flags are real flags of the project.
    const flags = await send("GET", "/feature_flags/?search=survey-targeting")
    expect(flags.json.results.map((f: { key: string }) => f.key)).toEqual(
      expect.arrayContaining([body.targeting_flag.key, body.internal_targeting_flag.key])
    )
    // Both project prefixes serve it.
    expect((await call(zed, `/api/environments/1/surveys/${body.id}/`)).json).toEqual(body)
  })

  it("shows posthog-js only launched surveys, with flag keys and without descriptions; remote config turns surveys on while one runs", async () => {
    // The same switch in config.js and in the config keys /decide carries.
    const config = async () => {
      const served = (await call(zed, `/array/${PROJECT_KEY}/config`, { key: null })).json.surveys
      const decide = await call(zed, "/decide/?v=3", {
        method: "POST",
        key: null,
        body: JSON.stringify({ token: PROJECT_KEY, distinct_id: "x" })
      })
      expect(decide.json.surveys).toBe(served)
      return served
    }
    const draft = (await send("POST", "/surveys/", survey())).json
    const ids = async () => (await publicSurveys()).json.surveys.map((s: { id: string }) => s.id)
    expect(await ids()).not.toContain(draft.id)
    expect(await config()).toBe(false)

    const launched = await send("PATCH", `/surveys/${draft.id}/`, {
      start_date: new Date(Date.now() - 1000).toISOString()
    })
    expect(launched.status, launched.text).toBe(200)
    expect(launched.json.internal_targeting_flag.active).toBe(true)
    const res = await publicSurveys()
    expect(res.status).toBe(200)
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example")
    const shown = res.json.surveys.find((s: { id: string }) => s.id === draft.id)
    expect(shown).toEqual({
      id: draft.id,
      name: draft.name,
      type: "popover",
      linked_flag_key: null,
      targeting_flag_key: null,
      internal_targeting_flag_key: draft.internal_targeting_flag.key,
      questions: draft.questions,
      conditions: null,
      appearance: null,
      start_date: launched.json.start_date,
      end_date: null,
      current_iteration: null,
      current_iteration_start_date: null,
      schedule: null,
      enable_partial_responses: null
    })
    expect(res.json.survey_config).toBeNull()
    expect(await config()).toBe(true)

    // Stopped at a future date: still running until then, its end date kept from posthog-js.
    const later = new Date(Date.now() + 3_600_000).toISOString()
    await send("PATCH", `/surveys/${draft.id}/`, { end_date: later })
    expect((await publicSurveys()).json.surveys.find((s: { id: string }) => s.id === draft.id).end_date).toBeNull()
    // Stopped now: shown ended, flags off.
    const stopped = await send("PATCH", `/surveys/${draft.id}/`, { end_date: new Date().toISOString() })
    expect(stopped.json.internal_targeting_flag.active).toBe(false)
    expect((await publicSurveys()).json.surveys.find((s: { id: string }) => s.id === draft.id).end_date).toBe(
      stopped.json.end_date
    )
    expect(await config()).toBe(false)
    // Archived: gone.
    expect((await send("PATCH", `/surveys/${draft.id}/`, { archived: true })).json.archived).toBe(true)
    expect(await ids()).not.toContain(draft.id)
    expect((await send("GET", "/surveys/?archived=true")).json.results.map((s: { id: string }) => s.id)).toContain(
      draft.id
    )
  })

  it("links a flag (and its variant), replaces and removes the targeting flag, and deletes the survey with its flags", async () => {
    const flag = (
      await send("POST", "/feature_flags/", {
        key: "new-checkout",
        filters: {
          groups: [{ rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: "control", rollout_percentage: 50 },
              { key: "test", rollout_percentage: 50 }
            ]
          }
        }
      })
    ).json
    const created = (
      await send("POST", "/surveys/", survey({ linked_flag_id: flag.id, conditions: { linkedFlagVariant: "test" } }))
    ).json
    expect(created.linked_flag).toMatchObject({ id: flag.id, key: "new-checkout" })
    expect(created.targeting_flag).toBeNull()

    const targeted = await send("PATCH", `/surveys/${created.id}/`, {
      targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 30 }] }
    })
    expect(targeted.status, targeted.text).toBe(200)
    const targetingKey = targeted.json.targeting_flag.key
    const changed = await send("PATCH", `/surveys/${created.id}/`, {
      targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 60 }] }
    })
    expect(changed.json.targeting_flag).toMatchObject({
      key: targetingKey,
      filters: { groups: [{ rollout_percentage: 60 }] }
    })
    const removed = await send("PATCH", `/surveys/${created.id}/`, { remove_targeting_flag: true })
    expect(removed.json.targeting_flag).toBeNull()
    expect((await send("GET", `/feature_flags/${targeted.json.targeting_flag.id}/`)).status).toBe(404)

    // Its internal flag deleted through the flags API: the survey can still be changed (a new targeting flag made) and deleted.
    expect(
      (await send("PATCH", `/feature_flags/${created.internal_targeting_flag.id}/`, { deleted: true })).status
    ).toBe(200)
    const edited = await send("PATCH", `/surveys/${created.id}/`, {
      start_date: new Date().toISOString(),
      targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 10 }] }
    })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.json).toMatchObject({
      internal_targeting_flag: null,
      targeting_flag: { active: true, filters: { groups: [{ rollout_percentage: 10 }] } }
    })
    const deleted = await send("DELETE", `/surveys/${created.id}/`)
    expect(deleted.status).toBe(204)
    expect((await send("GET", `/surveys/${created.id}/`)).status).toBe(404)
    expect((await send("GET", `/feature_flags/${edited.json.targeting_flag.id}/`)).status).toBe(404)
    // The linked flag is the user's own: it stays.
    expect((await send("GET", `/feature_flags/${flag.id}/`)).status).toBe(200)
  })

  it("refuses bad input with a 400 naming the field, and stores nothing", async () => {
    const before = (await send("GET", "/surveys/?limit=1")).json.count
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["unknown question type", survey({ questions: [{ type: "essay", question: "?" }] }), "questions__0__type"],
      ["question without text", survey({ questions: [{ type: "open", question: "  " }] }), "questions__0__question"],
      [
        "one choice",
        survey({ questions: [{ type: "single_choice", question: "?", choices: ["only"] }] }),
        "questions__0__choices"
      ],
      ["rating scale", survey({ questions: [{ type: "rating", question: "?", scale: 4 }] }), "questions__0__scale"],
      [
        "link scheme",
        survey({ questions: [{ type: "link", question: "?", link: "javascript:alert(1)" }] }),
        "questions__0__link"
      ],
      [
        "branch nowhere",
        survey({
          questions: [
            {
              type: "single_choice",
              question: "?",
              choices: ["a", "b"],
              branching: { type: "specific_question", index: 3 }
            }
          ]
        }),
        "questions__0__branching"
      ],
      [
        "response branching on open text",
        survey({
          questions: [
            { type: "open", question: "?", branching: { type: "response_based", responseValues: {} } },
            { type: "open", question: "!" }
          ]
        }),
        "questions__0__branching"
      ],
      [
        "shuffle with branching",
        survey({
          appearance: { shuffleQuestions: true },
          questions: [{ type: "open", question: "?", branching: { type: "end" } }]
        }),
        "appearance"
      ],
      ["no questions", survey({ questions: [] }), "questions"],
      ["unknown survey type", survey({ type: "banner" }), "type"],
      ["url match type", survey({ conditions: { url: "/x", urlMatchType: "contains" } }), "conditions__urlMatchType"],
      [
        "event filter operator",
        survey({
          conditions: {
            events: { values: [{ name: "e", propertyFilters: { a: { values: ["1"], operator: "between" } } }] }
          }
        }),
        "conditions__events__values__0__propertyFilters__a__operator"
      ],
      ["device type", survey({ conditions: { deviceTypes: ["Watch"] } }), "conditions__deviceTypes__0"],
      [
        "negative wait period",
        survey({ conditions: { seenSurveyWaitPeriodInDays: -1 } }),
        "conditions__seenSurveyWaitPeriodInDays"
      ],
      ["actions", survey({ conditions: { actions: { values: [{ id: 1 }] } } }), "conditions__actions__values"],
      [
        "dates in the wrong order",
        survey({ start_date: "2030-01-02T00:00:00Z", end_date: "2030-01-01T00:00:00Z" }),
        "end_date"
      ],
      ["not a date", survey({ start_date: "soon" }), "start_date"],
      ["unknown linked flag", survey({ linked_flag_id: 999_999 }), "linked_flag_id"],
      ["unknown targeting flag", survey({ targeting_flag_id: 999_999 }), "targeting_flag_id"],
      [
        "variant without a linked flag",
        survey({ conditions: { linkedFlagVariant: "test" } }),
        "conditions__linkedFlagVariant"
      ],
      [
        "targeting everyone",
        survey({ targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
        "targeting_flag_filters"
      ],
      [
        "bad targeting filters",
        survey({
          targeting_flag_filters: { groups: [{ properties: [{ key: "a", operator: "sounds_like", value: "x" }] }] }
        }),
        "targeting_flag_filters__groups__0__properties__0__operator"
      ],
      [
        "targeting an unknown cohort",
        survey({
          targeting_flag_filters: {
            groups: [{ properties: [{ key: "id", type: "cohort", value: 424242 }], rollout_percentage: 50 }]
          }
        }),
        "targeting_flag_filters"
      ],
      ["no name", { type: "popover", questions: [{ type: "open", question: "?" }] }, "name"],
      ["responses limit", survey({ responses_limit: 0 }), "responses_limit"]
    ]
    for (const [what, body, attr] of cases) {
      const res = await send("POST", "/surveys/", body)
      expect(res.status, `${what}: ${res.text}`).toBe(400)
      expect(res.json, what).toMatchObject({
        type: "validation_error",
        code: expect.any(String),
        detail: expect.any(String),
        attr
      })
    }
    expect((await send("GET", "/surveys/?limit=1")).json.count).toBe(before)
    const named = (await send("POST", "/surveys/", survey())).json
    const duplicate = await send("POST", "/surveys/", survey({ name: named.name }))
    expect(duplicate.status).toBe(400)
    expect(duplicate.json).toMatchObject({ code: "unique", attr: "name" })
    const renamed = await send("PATCH", `/surveys/${named.id}/`, {
      end_date: "2000-01-01T00:00:00Z",
      start_date: "2001-01-01T00:00:00Z"
    })
    expect(renamed.status).toBe(400)
    expect(renamed.json.attr).toBe("end_date")
    expect((await send("GET", `/surveys/${named.id}/`)).json).toMatchObject({ start_date: null, end_date: null })
  })

  it("answers 401 to a public request without a project's token, with CORS", async () => {
    for (const path of ["/api/surveys/", "/api/surveys/?token=phc_nobody", "/api/surveys/?token=phx_personal_key"]) {
      const res = await call(zed, path, { key: null, headers: { origin: "https://shop.example" } })
      expect(res.status, path).toBe(401)
      expect(res.json).toMatchObject({
        type: "authentication_error",
        code: "invalid_api_key",
        detail: expect.any(String),
        attr: null
      })
      expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example")
    }
  })

  it("takes any survey body to a 201 or a 400 with the error body, never storing a refused one", async () => {
    const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constant(""), fc.constant("?"))
    const question = fc.record(
      {
        type: fc.oneof(
          fc.constantFrom("open", "link", "rating", "single_choice", "multiple_choice"),
          fc.string({ maxLength: 6 })
        ),
        question: fc.oneof(text, fc.integer(), fc.constant(null)),
        choices: fc.option(fc.array(fc.oneof(text, fc.integer()), { maxLength: 4 }), { nil: undefined }),
        scale: fc.option(fc.constantFrom(2, 3, 4, 5, 7, 10, "5"), { nil: undefined }),
        link: fc.option(fc.constantFrom("https://a.example/x", "http://a.example", "mailto:a@b.co", "x"), {
          nil: undefined
        }),
        branching: fc.option(
          fc.oneof(
            fc.record({ type: fc.constantFrom("next_question", "end", "nope") }),
            fc.record({ type: fc.constant("specific_question"), index: fc.integer({ min: -1, max: 4 }) }),
            fc.record({
              type: fc.constant("response_based"),
              responseValues: fc.dictionary(
                fc.string({ maxLength: 3 }),
                fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constant("end"))
              )
            })
          ),
          { nil: undefined }
        )
      },
      { requiredKeys: ["type"] }
    )
    const body = fc.record(
      {
        name: fc.oneof(fc.uuid(), fc.constant(""), fc.integer()),
        type: fc.constantFrom("popover", "widget", "api", "x"),
        questions: fc.oneof(fc.array(question, { maxLength: 4 }), fc.constant("not a list")),
        conditions: fc.option(
          fc.record(
            {
              url: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
              urlMatchType: fc.option(fc.constantFrom("exact", "regex", "icontains", "gt", "?"), { nil: undefined }),
              seenSurveyWaitPeriodInDays: fc.option(fc.integer({ min: -2, max: 30 }), { nil: undefined })
            },
            { requiredKeys: [] }
          ),
          { nil: undefined }
        ),
        start_date: fc.option(fc.constantFrom("2030-01-01T00:00:00Z", "2031-01-01T00:00:00Z", "x"), { nil: undefined }),
        end_date: fc.option(fc.constantFrom("2030-06-01T00:00:00Z", "2029-01-01T00:00:00Z"), { nil: undefined })
      },
      { requiredKeys: ["type"] }
    )
    let stored = (await send("GET", "/surveys/?limit=1")).json.count
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const res = await send("POST", "/surveys/", input)
        expect([201, 400], res.text).toContain(res.status)
        if (res.status === 400) {
          expect(Object.keys(res.json).sort()).toEqual(["attr", "code", "detail", "type"])
          expect(res.json.type).toBe("validation_error")
        } else {
          stored++
          expect(res.json.questions.every((q: { id?: string }) => typeof q.id === "string")).toBe(true)
        }
        expect((await send("GET", "/surveys/?limit=1")).json.count).toBe(stored)
      }),
      { numRuns: 150 }
    )
  })
})
