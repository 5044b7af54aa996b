import type { StoredSurvey } from "../services/SurveyStore.js"

// When a survey runs: launched (a start date that has come), not stopped (no end date, or one
// still ahead) and not archived. posthog-js shows a survey that has a start date and no end date,
// so a survey is presented to it with its end date only once that date has passed.

/** What decides when a survey runs. */
export type SurveyDates = Pick<StoredSurvey, "archived" | "start_date" | "end_date">
type Dates = SurveyDates

/** Whether the survey is running now. */
export const isRunning = (survey: Dates, now: Date) =>
  !survey.archived &&
  survey.start_date !== null &&
  survey.start_date <= now &&
  (survey.end_date === null || survey.end_date > now)

/** Whether posthog-js may see it at all: launched and not archived (drafts stay private). */
export const isPublished = (survey: Dates, now: Date) =>
  !survey.archived && survey.start_date !== null && survey.start_date <= now

/** Whether its targeting flags should be on (PostHog's rule: launched, not stopped, not archived). */
export const flagsActive = (survey: Dates, now: Date) =>
  !survey.archived && survey.start_date !== null && (survey.end_date === null || survey.end_date > now)

/** The end date posthog-js is shown: none until it has passed. */
export const shownEndDate = (survey: Dates, now: Date) =>
  survey.end_date !== null && survey.end_date <= now ? survey.end_date : null
