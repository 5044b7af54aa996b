import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { dateTime } from "../insights/planners/statements.js"
import { QueryRunner } from "../queries/runner.js"
import type { StoredSurvey } from "../services/SurveyStore.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import type { Question } from "./definition.js"

// A survey's results from its events, as ZedQL over `events`: how often posthog-js showed it, and
// how often it was dismissed or answered; then each question's answers. posthog-js sends `survey
// sent` again as someone answers more questions of one submission (`$survey_submission_id`), so a
// submission counts once, with its latest answers.

export const SHOWN = "survey shown"
export const DISMISSED = "survey dismissed"
export const SENT = "survey sent"

/** Most distinct answers listed per question (open text and "other" choices can be many). */
export const MAX_ANSWERS = 100

export interface Range {
  readonly from: Date
  readonly to: Date | null
}

export interface EventStats {
  readonly total_count: number
  readonly unique_persons: number
  readonly first_seen: string | null
  readonly last_seen: string | null
}

export interface QuestionResults {
  readonly id: string
  readonly type: string
  readonly question: string
  /** Submissions that answered it. */
  readonly response_count: number
  /** Distinct answers (each choice of a multiple choice answer apart), most frequent first, at most MAX_ANSWERS. */
  readonly results: ReadonlyArray<{ readonly value: string; readonly count: number }>
  /** Rating questions: the mean rating. */
  readonly average?: number | null
  /** Ratings out of 10: the Net Promoter Score, from promoters (9–10), passives (7–8) and detractors (0–6). */
  readonly nps?: {
    readonly score: number | null
    readonly promoters: number
    readonly passives: number
    readonly detractors: number
  }
}

const conditions = (survey: StoredSurvey, range: Range): Array<A.Expr> => [
  Q.expr`properties.$survey_id = ${survey.id}`,
  Q.expr`timestamp >= ${dateTime(range.from.getTime())}`,
  ...(range.to === null ? [] : [Q.expr`timestamp <= ${dateTime(range.to.getTime())}`])
]

/** One row per submission of `survey sent`, with the `columns` read from its latest event. */
const submissions = (
  survey: StoredSurvey,
  range: Range,
  columns: ReadonlyArray<A.Expr>,
  where: ReadonlyArray<A.Expr> = []
) =>
  Q.select`SELECT ${columns} FROM events WHERE ${Q.and([Q.expr`event = ${SENT}`, ...conditions(survey, range), ...where])}
    GROUP BY coalesce(toString(properties.$survey_submission_id), toString(uuid))`

/** How many submissions the survey has had since it started. */
export const responsesQuery = (survey: StoredSurvey) =>
  Q.select`SELECT count() FROM ${submissions(survey, { from: survey.start_date ?? survey.created_at, to: null }, [Q.alias(Q.constant(1), "one")])}`

const statsQuery = (survey: StoredSurvey, range: Range) => {
  const sent = submissions(survey, range, [
    Q.alias(Q.expr`argMax(person_id, timestamp)`, "person"),
    Q.alias(Q.expr`max(timestamp)`, "at")
  ])
  return Q.select`SELECT event, count(), uniq(person_id), min(timestamp), max(timestamp) FROM events
    WHERE ${Q.and([Q.expr`event IN (${SHOWN}, ${DISMISSED})`, ...conditions(survey, range)])} GROUP BY event
  UNION ALL
  SELECT ${SENT}, count(), uniq(person), min(at), max(at) FROM ${sent}`
}

/** A question's answer in an event: `$survey_response_<id>`, or the older `$survey_response[_<index>]`. */
const answer = (id: string, index: number) =>
  Q.expr`coalesce(properties[${`$survey_response_${id}`}], properties[${index === 0 ? "$survey_response" : `$survey_response_${index}`}])`

/** Each distinct answer and its count, and the number of submissions that answered. */
const answersQuery = (
  survey: StoredSurvey,
  range: Range,
  question: Question & { readonly id: string },
  index: number
) => {
  const value = answer(question.id, index)
  const answered = submissions(
    survey,
    range,
    [Q.alias(Q.expr`argMax(${value}, timestamp)`, "r")],
    [Q.expr`${value} IS NOT NULL`]
  )
  // A multiple choice answer is a list: each choice counts apart.
  const values =
    question.type === "multiple_choice"
      ? Q.select`SELECT arrayJoin(JSONExtractArrayRaw(toString(r))) AS v FROM ${answered}`
      : Q.select`SELECT toString(r) AS v FROM ${answered}`
  return Q.select`SELECT v, c, (SELECT count() FROM ${answered}) FROM (SELECT v, count() AS c FROM ${values} GROUP BY v)
    ORDER BY c DESC, v LIMIT ${MAX_ANSWERS}`
}

const iso = (value: unknown) => (value === null || value === undefined ? null : new Date(String(value)).toISOString())

const emptyStats: EventStats = { total_count: 0, unique_persons: 0, first_seen: null, last_seen: null }

/** A multiple choice answer's element is JSON text ("\"Blue\""); any other answer is its text already. */
const decodeChoice = (raw: string) => {
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === "string" ? value : raw
  } catch {
    return raw
  }
}

const ratingSummary = (question: Question, results: QuestionResults["results"]) => {
  if (question.type !== "rating") return {}
  const ratings = results.flatMap(({ count, value }) =>
    Number.isFinite(Number(value)) ? [{ rating: Number(value), count }] : []
  )
  const total = ratings.reduce((n, r) => n + r.count, 0)
  const average = total === 0 ? null : ratings.reduce((sum, r) => sum + r.rating * r.count, 0) / total
  if (question.scale !== 10) return { average }
  const among = (low: number, high: number) =>
    ratings.filter((r) => r.rating >= low && r.rating <= high).reduce((n, r) => n + r.count, 0)
  const [promoters, passives, detractors] = [among(9, 10), among(7, 8), among(0, 6)]
  const rated = promoters + passives + detractors
  return {
    average,
    nps: {
      score: rated === 0 ? null : Math.round(((promoters - detractors) / rated) * 100),
      promoters,
      passives,
      detractors
    }
  }
}

/** The survey's event counts (by event name) and each question's results over the range. */
export const surveyResults = (project: Project, survey: StoredSurvey, range: Range) =>
  Effect.gen(function* () {
    const runner = yield* QueryRunner
    const stats: Record<string, EventStats> = { [SHOWN]: emptyStats, [DISMISSED]: emptyStats, [SENT]: emptyStats }
    for (const [event, total, persons, first, last] of yield* runner.select(project, statsQuery(survey, range))) {
      if (Number(total) > 0) {
        stats[String(event)] = {
          total_count: Number(total),
          unique_persons: Number(persons),
          first_seen: iso(first),
          last_seen: iso(last)
        }
      }
    }
    const questions: Array<QuestionResults> = []
    for (const [index, question] of (survey.questions as ReadonlyArray<Question>).entries()) {
      if (question.id === undefined) continue
      const rows = yield* runner.select(project, answersQuery(survey, range, { ...question, id: question.id }, index))
      const results = rows.map(([value, count]) => ({
        value: question.type === "multiple_choice" ? decodeChoice(String(value)) : String(value),
        count: Number(count)
      }))
      questions.push({
        id: question.id,
        type: question.type,
        question: question.question,
        response_count: rows.length === 0 ? 0 : Number(rows[0]![2]),
        results,
        ...ratingSummary(question, results)
      })
    }
    return { stats, questions }
  })

/** PostHog's rates: sent and dismissed per shown, in percent with two decimals. */
export const rates = (stats: Readonly<Record<string, EventStats>>) => {
  const shown = stats[SHOWN] ?? emptyStats
  const rate = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 100)
  return {
    response_rate: rate(stats[SENT]?.total_count ?? 0, shown.total_count),
    dismissal_rate: rate(stats[DISMISSED]?.total_count ?? 0, shown.total_count),
    unique_users_response_rate: rate(stats[SENT]?.unique_persons ?? 0, shown.unique_persons),
    unique_users_dismissal_rate: rate(stats[DISMISSED]?.unique_persons ?? 0, shown.unique_persons)
  }
}
