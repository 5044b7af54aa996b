import { useQuery } from "@tanstack/react-query"
import { api } from "../api.js"
import { type Question, ratingValues } from "../surveyModel.js"
import { ListHead } from "./ListHead.js"
import { ErrorAlert } from "./Page.js"

// A survey's results, as its stats endpoint sums up the `survey shown`, `dismissed` and `sent`
// events (in ZedQL): how many saw, dismissed and answered it, and each question's answers.

interface QuestionStats {
  readonly id: string
  readonly type: string
  readonly question: string
  readonly response_count: number
  readonly results: ReadonlyArray<{ readonly value: string; readonly count: number }>
  readonly average?: number | null
  readonly nps?: {
    readonly score: number
    readonly promoters: number
    readonly passives: number
    readonly detractors: number
  } | null
}

interface Stats {
  readonly stats: Readonly<Record<string, { readonly total_count: number; readonly unique_persons: number }>>
  readonly rates: { readonly response_rate: number; readonly dismissal_rate: number }
  readonly questions: ReadonlyArray<QuestionStats>
}

const times = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

/** Answer counts as bars, the most frequent first; a rating's every value in order, unanswered ones at 0. */
const Bars = ({ question, scale }: { readonly question: QuestionStats; readonly scale: number | undefined }) => {
  const rows =
    question.type === "rating" && scale !== undefined
      ? ratingValues(scale).map((value) => ({
          value: String(value),
          count: question.results.find((row) => row.value === String(value))?.count ?? 0
        }))
      : question.results
  const most = Math.max(1, ...rows.map((row) => row.count))
  return (
    <table className="list" aria-label={`Answers to ${question.question}`}>
      <ListHead columns={["Answer", "Responses", ""]} />
      <tbody>
        {rows.map((row) => (
          <tr key={row.value}>
            <th scope="row">{row.value}</th>
            <td className="number">{row.count}</td>
            <td className="bar-cell">
              <span className="answer-bar" style={{ width: `${(100 * row.count) / most}%` }} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const QuestionResult = ({
  question,
  n,
  scale
}: {
  readonly question: QuestionStats
  readonly n: number
  readonly scale: number | undefined
}) => (
  <section className="card" aria-label={`Results of question ${n}`}>
    <h3>
      {n}. {question.question}
    </h3>
    <p className="muted">{times(question.response_count, "response")}</p>
    {question.nps && (
      <p className="bold-number">
        <span className="value">NPS {question.nps.score}</span>
        <span className="muted">
          {question.nps.promoters} promoters, {question.nps.passives} passives, {question.nps.detractors} detractors
        </span>
      </p>
    )}
    {question.average !== undefined && question.average !== null && <p>Average: {question.average}</p>}
    {question.type === "open" ? (
      <ul className="open-answers" aria-label={`Answers to ${question.question}`}>
        {question.results.map((row) => (
          <li key={row.value}>
            {row.value}
            {row.count > 1 && <span className="muted"> ×{row.count}</span>}
          </li>
        ))}
      </ul>
    ) : (
      <Bars question={question} scale={scale} />
    )}
  </section>
)

export const SurveyResults = ({
  id,
  surveyId,
  questions
}: {
  readonly id: string
  readonly surveyId: string
  /** The survey's questions, for each rating's scale. */
  readonly questions: ReadonlyArray<Question>
}) => {
  const stats = useQuery({
    queryKey: ["survey-stats", id, surveyId],
    queryFn: () => api<Stats>(`/api/projects/${id}/surveys/${surveyId}/stats/`),
    refetchInterval: 10_000
  })
  const count = (event: string) => stats.data?.stats[event]?.total_count ?? 0
  return (
    <section aria-labelledby="survey-results">
      <h2 id="survey-results">Results</h2>
      <ErrorAlert error={stats.error} />
      {stats.data && (
        <>
          <p role="status">
            Shown {times(count("survey shown"), "time")}, answered {count("survey sent")} (
            {stats.data.rates.response_rate}%), dismissed {count("survey dismissed")}.
          </p>
          {stats.data.questions.map((question, i) => (
            <QuestionResult
              key={question.id}
              question={question}
              n={i + 1}
              scale={questions.find((asked) => asked.id === question.id)?.scale}
            />
          ))}
        </>
      )}
    </section>
  )
}
