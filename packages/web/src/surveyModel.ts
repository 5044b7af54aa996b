import type { Condition } from "./flagModel.js"

// Surveys as the surveys API reads and writes them (the fields the app edits).

export const SURVEY_TYPES = { popover: "Popover", widget: "Feedback button", api: "API (your own UI)" } as const
export const QUESTION_TYPES = {
  open: "Open text",
  link: "Link",
  rating: "Rating",
  single_choice: "Single choice",
  multiple_choice: "Multiple choice"
} as const
export const RATING_SCALES = { 2: "2 (thumbs)", 3: "1–3", 5: "1–5", 7: "1–7", 10: "0–10 (NPS)" } as const
export const URL_MATCH = {
  icontains: "contains",
  not_icontains: "doesn't contain",
  exact: "equals",
  is_not: "doesn't equal",
  regex: "matches regex",
  not_regex: "doesn't match regex"
} as const

export type QuestionType = keyof typeof QUESTION_TYPES

export interface Question {
  readonly id?: string
  readonly type: QuestionType
  readonly question: string
  readonly description?: string
  readonly optional?: boolean
  readonly buttonText?: string
  readonly choices?: ReadonlyArray<string>
  readonly hasOpenChoice?: boolean
  readonly scale?: number
  readonly display?: "number" | "emoji"
  readonly lowerBoundLabel?: string
  readonly upperBoundLabel?: string
  readonly link?: string
}

export interface Appearance {
  readonly backgroundColor?: string
  readonly submitButtonText?: string
  readonly thankYouMessageHeader?: string
  readonly position?: string
  readonly [other: string]: unknown
}

export interface SurveyConditions {
  readonly url?: string
  readonly urlMatchType?: keyof typeof URL_MATCH
  readonly selector?: string
  readonly seenSurveyWaitPeriodInDays?: number | null
  readonly [other: string]: unknown
}

export interface Survey {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly type: keyof typeof SURVEY_TYPES | "external_survey"
  readonly schedule: "once" | "always" | null
  readonly questions: ReadonlyArray<Question>
  readonly conditions: SurveyConditions | null
  readonly appearance: Appearance | null
  readonly linked_flag_id: number | null
  readonly targeting_flag: { readonly filters: { readonly groups?: ReadonlyArray<Condition> } } | null
  readonly start_date: string | null
  readonly end_date: string | null
  readonly archived: boolean
  readonly responses_limit: number | null
  readonly created_at: string
  readonly created_by: { readonly email: string; readonly first_name: string } | null
}

/** Where a survey is in its life: a draft until launched, running until stopped. */
export const surveyStatus = (survey: Survey, now = Date.now()) =>
  survey.archived
    ? "Archived"
    : survey.start_date === null || Date.parse(survey.start_date) > now
      ? survey.start_date === null
        ? "Draft"
        : "Scheduled"
      : survey.end_date !== null && Date.parse(survey.end_date) <= now
        ? "Completed"
        : "Running"

/** A blank question of `type`, keeping the text already typed. */
export const questionOf = (type: QuestionType, question: string): Question =>
  type === "rating"
    ? { type, question, scale: 10, display: "number", lowerBoundLabel: "Unlikely", upperBoundLabel: "Very likely" }
    : type === "single_choice" || type === "multiple_choice"
      ? { type, question, choices: ["Yes", "No"] }
      : type === "link"
        ? { type, question, link: "https://" }
        : { type, question }

/** The values a rating of `scale` offers, as posthog-js draws them (0–10 for 10, else from 1). */
export const ratingValues = (scale: number) =>
  Array.from({ length: scale === 10 ? 11 : scale }, (_, i) => (scale === 10 ? i : i + 1))
