import { type Question, QUESTION_TYPES, questionOf, RATING_SCALES } from "../surveyModel.js"
import { Choice, Field } from "./Field.js"
import { FieldError } from "./FieldError.js"
import { ItemList } from "./ItemList.js"

/** One question's own fields, by its type. */
const QuestionFields = ({
  question,
  n,
  set
}: {
  readonly question: Question
  readonly n: number
  readonly set: (question: Question) => void
}) => (
  <>
    {question.type === "rating" && (
      <>
        <Choice
          label={`Question ${n}: scale`}
          value={String(question.scale ?? 10) as `${keyof typeof RATING_SCALES}`}
          options={RATING_SCALES}
          onChange={(scale) => set({ ...question, scale: Number(scale) })}
        />
        <Choice
          label={`Question ${n}: display`}
          value={question.display ?? "number"}
          options={{ number: "Numbers", emoji: "Emoji" }}
          onChange={(display) => set({ ...question, display })}
        />
        <Field
          label={`Question ${n}: lower label`}
          value={question.lowerBoundLabel ?? ""}
          onChange={(lowerBoundLabel) => set({ ...question, lowerBoundLabel })}
        />
        <Field
          label={`Question ${n}: upper label`}
          value={question.upperBoundLabel ?? ""}
          onChange={(upperBoundLabel) => set({ ...question, upperBoundLabel })}
        />
      </>
    )}
    {(question.type === "single_choice" || question.type === "multiple_choice") && (
      <>
        <label>
          {`Question ${n}: choices (one a line)`}
          <textarea
            rows={3}
            value={(question.choices ?? []).join("\n")}
            onChange={(event) => set({ ...question, choices: event.target.value.split("\n") })}
          />
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={question.hasOpenChoice ?? false}
            onChange={(event) => set({ ...question, hasOpenChoice: event.target.checked })}
          />{" "}
          {`Question ${n}: last choice is "Other" with a text box`}
        </label>
      </>
    )}
    {question.type === "link" && (
      <Field
        label={`Question ${n}: link`}
        value={question.link ?? ""}
        onChange={(link) => set({ ...question, link })}
      />
    )}
  </>
)

/** A survey's questions, in order; the API's refusals beside the question they name. */
export const QuestionsEditor = ({
  questions,
  onChange,
  error
}: {
  readonly questions: ReadonlyArray<Question>
  readonly onChange: (questions: ReadonlyArray<Question>) => void
  readonly error: unknown
}) => (
  <ItemList
    legend="Questions"
    noun="question"
    items={questions}
    min={1}
    blank={questionOf("open", "")}
    onChange={onChange}
  >
    {(question, i, set) => (
      <div className="stack question">
        <div className="toolbar">
          <Choice
            label={`Question ${i + 1}: type`}
            value={question.type}
            options={QUESTION_TYPES}
            onChange={(type) => set({ ...questionOf(type, question.question), id: question.id })}
          />
          <Field
            label={`Question ${i + 1}`}
            value={question.question}
            onChange={(text) => set({ ...question, question: text })}
            required
          />
        </div>
        <Field
          label={`Question ${i + 1}: description`}
          value={question.description ?? ""}
          onChange={(description) => set({ ...question, description })}
        />
        <QuestionFields question={question} n={i + 1} set={set} />
        <label className="inline">
          <input
            type="checkbox"
            checked={question.optional ?? false}
            onChange={(event) => set({ ...question, optional: event.target.checked })}
          />{" "}
          {`Question ${i + 1}: optional`}
        </label>
        <FieldError error={error} attr={`questions__${i}`} />
      </div>
    )}
  </ItemList>
)
