import { randomUUID } from "node:crypto"
import { Schema } from "effect"
import type { PROPERTY_OPERATORS } from "../filters/property.js"

// What a survey is made of, as posthog-js renders it: questions of five types with optional
// branching, display conditions (URL, selector, events, device types, wait period, repeats) and
// appearance. Each field posthog-js reads is checked; keys it may read that Zed does not know
// (translations, newer appearance options) are kept as sent.

export const SURVEY_TYPES = ["popover", "widget", "api", "external_survey"] as const
export const QUESTION_TYPES = ["open", "link", "rating", "single_choice", "multiple_choice"] as const
/** `once` per person, or `always` when the conditions match (recurring iterations are not supported). */
export const SCHEDULES = ["once", "always"] as const
/** Most questions a survey may have: its results run a query per question. */
export const MAX_QUESTIONS = 50

type PropertyOperator = (typeof PROPERTY_OPERATORS)[number]

/** How posthog-js matches a URL or the device type: the property operators it evaluates itself. */
export const MATCH_TYPES = [
  "regex",
  "not_regex",
  "exact",
  "is_not",
  "icontains",
  "not_icontains"
] as const satisfies ReadonlyArray<PropertyOperator>
/** The operators of an event condition's property filters. */
const EVENT_FILTER_OPERATORS = [...MATCH_TYPES, "gt", "lt"] as const satisfies ReadonlyArray<PropertyOperator>

const rule = <A>(predicate: (a: A) => boolean, message: string) =>
  Schema.filter<Schema.Schema<A, any, never>>(predicate, { message: () => message })

export const Text = Schema.String.pipe(rule((s: string) => s.trim().length > 0, "This field may not be blank."))

/** Whatever other keys an object carries, kept as sent. */
const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const Branching = Schema.Union(
  Schema.Struct({ type: Schema.Literal("next_question") }),
  Schema.Struct({ type: Schema.Literal("end") }),
  Schema.Struct({ type: Schema.Literal("specific_question"), index: Schema.Int.pipe(Schema.nonNegative()) }),
  Schema.Struct({
    type: Schema.Literal("response_based"),
    responseValues: Schema.Record({
      key: Schema.String,
      value: Schema.Union(Schema.Int.pipe(Schema.nonNegative()), Schema.Literal("end"))
    })
  })
)
export type Branching = typeof Branching.Type

const common = {
  id: Schema.optional(
    Schema.String.pipe(rule((s: string) => s.length > 0 && s.length <= 200, "A question id has 1 to 200 characters."))
  ),
  question: Text,
  description: Schema.optional(Schema.NullOr(Schema.String)),
  descriptionContentType: Schema.optional(Schema.Literal("text", "html")),
  optional: Schema.optional(Schema.Boolean),
  buttonText: Schema.optional(Schema.String),
  branching: Schema.optional(Schema.NullOr(Branching))
}

const LINK = /^(https:\/\/[^\s/?#]+[^\s]*|mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,})$/

const Length = Schema.Struct({
  type: Schema.Literal("min_length", "max_length"),
  value: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.positive())))
})

const ValidationRules = Schema.Array(Schema.Union(Length, Schema.Struct({ type: Schema.Literal("email") }))).pipe(
  Schema.filter(
    (rules) => {
      const bound = (type: string) => {
        const found = rules.find((r) => r.type === type)
        return found !== undefined && "value" in found ? (found.value ?? undefined) : undefined
      }
      const [min, max] = [bound("min_length"), bound("max_length")]
      return min === undefined || max === undefined || min <= max
    },
    { message: () => "Minimum length cannot be greater than maximum length" }
  )
)

const OpenQuestion = Schema.Struct(
  {
    type: Schema.Literal("open"),
    ...common,
    validation: Schema.optional(ValidationRules)
  },
  Rest
)

const LinkQuestion = Schema.Struct(
  {
    type: Schema.Literal("link"),
    ...common,
    link: Schema.String.pipe(rule((s: string) => LINK.test(s), "Link must be an https URL or a mailto: address."))
  },
  Rest
)

const RatingQuestion = Schema.Struct(
  {
    type: Schema.Literal("rating"),
    ...common,
    display: Schema.optional(Schema.Literal("number", "emoji")),
    scale: Schema.Literal(2, 3, 5, 7, 10),
    lowerBoundLabel: Schema.optional(Schema.String),
    upperBoundLabel: Schema.optional(Schema.String),
    skipSubmitButton: Schema.optional(Schema.Boolean)
  },
  Rest
)

const choiceFields = {
  ...common,
  choices: Schema.Array(Text).pipe(
    rule((c: ReadonlyArray<string>) => c.length >= 2 && c.length <= 20, "A choice question has 2 to 20 choices.")
  ),
  hasOpenChoice: Schema.optional(Schema.Boolean),
  shuffleOptions: Schema.optional(Schema.Boolean),
  skipSubmitButton: Schema.optional(Schema.Boolean)
}

const SingleChoiceQuestion = Schema.Struct({ type: Schema.Literal("single_choice"), ...choiceFields }, Rest)
const MultipleChoiceQuestion = Schema.Struct({ type: Schema.Literal("multiple_choice"), ...choiceFields }, Rest)

export const Question = Schema.Union(
  OpenQuestion,
  LinkQuestion,
  RatingQuestion,
  SingleChoiceQuestion,
  MultipleChoiceQuestion
).annotations({
  identifier: "SurveyQuestion",
  description: "`open`, `link`, `rating`, `single_choice` or `multiple_choice`, as posthog-js renders them."
})
export type Question = typeof Question.Type

export const Questions = Schema.Array(Question).pipe(
  rule(
    (q: ReadonlyArray<Question>) => q.length >= 1 && q.length <= MAX_QUESTIONS,
    `A survey has 1 to ${MAX_QUESTIONS} questions.`
  )
)

const EventValue = Schema.Struct({
  name: Text,
  propertyFilters: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Struct({ values: Schema.Array(Schema.String), operator: Schema.Literal(...EVENT_FILTER_OPERATORS) })
    })
  )
})

const EventsCondition = Schema.NullOr(
  Schema.Struct({
    repeatedActivation: Schema.optional(Schema.Boolean),
    values: Schema.Array(EventValue)
  })
)

export const Conditions = Schema.Struct(
  {
    url: Schema.optional(Schema.NullOr(Schema.String)),
    urlMatchType: Schema.optional(Schema.Literal(...MATCH_TYPES)),
    selector: Schema.optional(Schema.NullOr(Schema.String)),
    seenSurveyWaitPeriodInDays: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.nonNegative()))),
    events: Schema.optional(EventsCondition),
    cancelEvents: Schema.optional(EventsCondition),
    // PostHog names actions by id; Zed has no actions to name.
    actions: Schema.optional(
      Schema.NullOr(
        Schema.Struct({
          values: Schema.Array(Schema.Unknown).pipe(
            rule((v: ReadonlyArray<unknown>) => v.length === 0, "Zed has no actions: use events conditions.")
          )
        })
      )
    ),
    deviceTypes: Schema.optional(Schema.Array(Schema.Literal("Desktop", "Mobile", "Tablet"))),
    deviceTypesMatchType: Schema.optional(Schema.Literal(...MATCH_TYPES)),
    linkedFlagVariant: Schema.optional(Schema.NullOr(Schema.String))
  },
  Rest
).annotations({
  identifier: "SurveyConditions",
  description: "When posthog-js shows the survey: URL, selector, events, device types, wait period, repeats."
})
export type Conditions = typeof Conditions.Type

export const Appearance = Schema.Struct(
  {
    surveyPopupDelaySeconds: Schema.optional(Schema.Number.pipe(Schema.nonNegative())),
    position: Schema.optional(
      Schema.Literal(
        "top_left",
        "top_right",
        "top_center",
        "middle_left",
        "middle_right",
        "middle_center",
        "left",
        "center",
        "right",
        "next_to_trigger"
      )
    ),
    widgetType: Schema.optional(Schema.Literal("button", "tab", "selector")),
    thankYouMessageDescriptionContentType: Schema.optional(Schema.Literal("text", "html")),
    whiteLabel: Schema.optional(Schema.Boolean),
    autoDisappear: Schema.optional(Schema.Boolean),
    displayThankYouMessage: Schema.optional(Schema.Boolean),
    shuffleQuestions: Schema.optional(Schema.Boolean)
  },
  Rest
).annotations({
  identifier: "SurveyAppearance",
  description: "Colors, texts, position and widget options, as posthog-js reads them."
})
export type Appearance = typeof Appearance.Type

/** A problem between fields, with the field it is about. */
export interface Inconsistency {
  readonly detail: string
  readonly attr: string
}

const targets = (branching: Branching | null | undefined): ReadonlyArray<number> =>
  branching?.type === "specific_question"
    ? [branching.index]
    : branching?.type === "response_based"
      ? Object.values(branching.responseValues).filter((v): v is number => v !== "end")
      : []

/** What the fields' schemas cannot see alone: branches leading to questions that exist, and not shuffled away. */
export const inconsistency = (
  questions: ReadonlyArray<Question>,
  appearance: Appearance | null | undefined
): Inconsistency | undefined => {
  for (const [i, question] of questions.entries()) {
    const branching = question.branching
    const attr = `questions__${i}__branching`
    if (branching?.type === "response_based" && question.type !== "rating" && question.type !== "single_choice") {
      return { detail: "Response-based branching is for rating and single choice questions.", attr }
    }
    for (const target of targets(branching)) {
      if (target >= questions.length || target === i)
        return {
          detail: `Question ${i + 1} branches to question index ${target}, which is not another question of the survey.`,
          attr
        }
    }
  }
  const ids = questions.flatMap((q) => (q.id === undefined ? [] : [q.id]))
  if (new Set(ids).size < ids.length) return { detail: "Question ids must be unique.", attr: "questions" }
  if (appearance?.shuffleQuestions === true && questions.some((q) => q.branching != null)) {
    return { detail: "Question shuffling and question branching cannot be used together.", attr: "appearance" }
  }
  return undefined
}

/** Questions with ids: response properties (`$survey_response_<id>`) are named after them. */
export const withIds = (questions: ReadonlyArray<Question>): ReadonlyArray<Question> =>
  questions.map((q) => (q.id === undefined ? { ...q, id: randomUUID() } : q))
