import { useState } from "react"
import { type Appearance, type Question, ratingValues } from "../surveyModel.js"

// How posthog-js will draw the survey's questions, one at a time, as its popover does: the question,
// its description, then its input (rating buttons with their labels, choices, a text box or a link),
// and the submit button. A picture for the editor: nothing here is sent.

const EMOJI: Record<number, ReadonlyArray<string>> = { 3: ["😞", "😐", "😀"], 5: ["😡", "😞", "😐", "🙂", "😀"] }

const Input = ({ question, n }: { readonly question: Question; readonly n: number }) => {
  switch (question.type) {
    case "rating": {
      const values = ratingValues(question.scale ?? 10)
      const emoji = question.display === "emoji" ? EMOJI[question.scale ?? 0] : undefined
      return (
        <div>
          <div className="preview-rating">
            {values.map((value, i) => (
              <span key={value} className="preview-option">
                {emoji?.[i] ?? value}
              </span>
            ))}
          </div>
          <div className="preview-bounds">
            <span>{question.lowerBoundLabel}</span>
            <span>{question.upperBoundLabel}</span>
          </div>
        </div>
      )
    }
    case "single_choice":
    case "multiple_choice":
      return (
        <ul className="preview-choices">
          {(question.choices ?? []).map((choice, i) => (
            <li key={i} className="preview-option">
              {question.type === "single_choice" ? "◯" : "☐"} {choice}
              {question.hasOpenChoice && i === (question.choices ?? []).length - 1 ? ": ____" : ""}
            </li>
          ))}
        </ul>
      )
    case "link":
      return null
    default:
      return <div className="preview-text" aria-label={`Question ${n}'s answer box`} />
  }
}

export const SurveyPreview = ({
  questions,
  appearance
}: {
  readonly questions: ReadonlyArray<Question>
  readonly appearance: Appearance
}) => {
  const [at, setAt] = useState(0)
  const shown = Math.min(at, questions.length - 1)
  const question = questions[shown]
  const last = shown === questions.length - 1
  return (
    <figure className="card survey-preview-frame" aria-label="Survey preview">
      <figcaption className="muted">
        Preview: question {shown + 1} of {questions.length}
      </figcaption>
      {question && (
        <div className="survey-preview" style={{ background: appearance.backgroundColor || undefined }}>
          <p className="preview-question">{question.question || "(no question yet)"}</p>
          {question.description && <p className="preview-description">{question.description}</p>}
          <Input question={question} n={shown + 1} />
          <span className="preview-submit">
            {question.buttonText ||
              (question.type === "link" ? "Go" : last ? appearance.submitButtonText || "Submit" : "Next")}
          </span>
        </div>
      )}
      <div className="toolbar">
        <button type="button" disabled={shown === 0} onClick={() => setAt(shown - 1)}>
          Previous question
        </button>
        <button type="button" disabled={last} onClick={() => setAt(shown + 1)}>
          Next question
        </button>
      </div>
    </figure>
  )
}
