import { useQuery } from "@tanstack/react-query"
import { api } from "../api.js"
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

/** Answer counts as bars, the most frequent first (a rating's values in order). */
const Bars = ({ question }: { readonly question: QuestionStats }) => {
  const rows =
    question.type === "rating"
      ? [...question.results].sort((a, b) => Number(a.value) - Number(b.value))
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

const QuestionResult = ({ question, n }: { readonly question: QuestionStats; readonly n: number }) => (
  <section className="card" aria-label={`Results of question ${n}`}>
    <h3>
      {n}. {question.question}
    </h3>
    <p className="muted">{question.response_count} responses</p>
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
      <Bars question={question} />
    )}
  </section>
)

export const SurveyResults = ({ id, surveyId }: { readonly id: string; readonly surveyId: string }) => {
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
            Shown {count("survey shown")} times, answered {count("survey sent")} ({stats.data.rates.response_rate}%),
            dismissed {count("survey dismissed")}.
          </p>
          {stats.data.questions.map((question, i) => (
            <QuestionResult key={question.id} question={question} n={i + 1} />
          ))}
        </>
      )}
    </section>
  )
}
