import { defaultKeymap, history, historyKeymap } from "@codemirror/commands"
import { defaultHighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language"
import { EditorState, StateEffect, StateField } from "@codemirror/state"
import { Decoration, type DecorationSet, EditorView, keymap, lineNumbers } from "@codemirror/view"
import { useEffect, useRef } from "react"

// Hog code in CodeMirror: highlighted by a small tokenizer of Hog's keywords, strings, numbers and
// comments, and a compile error underlined where the API says it is (line and column).

const KEYWORDS = new Set([
  "let",
  "fun",
  "return",
  "if",
  "else",
  "while",
  "for",
  "in",
  "try",
  "catch",
  "throw",
  "and",
  "or",
  "not",
  "true",
  "false",
  "null",
  "like",
  "ilike"
])

const hog = StreamLanguage.define<{ comment: boolean }>({
  startState: () => ({ comment: false }),
  token: (stream, state) => {
    if (state.comment) {
      if (stream.skipTo("*/")) {
        stream.next()
        stream.next()
        state.comment = false
      } else stream.skipToEnd()
      return "comment"
    }
    if (stream.eatSpace()) return null
    if (stream.match("//")) {
      stream.skipToEnd()
      return "comment"
    }
    if (stream.match("/*")) {
      state.comment = true
      return "comment"
    }
    if (stream.match(/^f?'(?:[^'\\]|\\.)*'?/)) return "string"
    if (stream.match(/^\d+(\.\d+)?/)) return "number"
    const word = stream.match(/^[A-Za-z_$][\w$]*/) as RegExpMatchArray | null
    if (word) return KEYWORDS.has(word[0].toLowerCase()) ? "keyword" : "variableName"
    stream.next()
    return null
  },
  languageData: { commentTokens: { line: "//" } }
})

export interface HogError {
  readonly line: number
  /** From 0, as the API reports it. */
  readonly column: number
}

const setError = StateEffect.define<HogError | null>()

const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update: (marks, transaction) => {
    let next = marks.map(transaction.changes)
    for (const effect of transaction.effects) {
      if (!effect.is(setError)) continue
      const error = effect.value
      if (error === null || error.line > transaction.state.doc.lines) next = Decoration.none
      else {
        const line = transaction.state.doc.line(error.line)
        const from = Math.min(line.from + error.column, line.to)
        const to = from < line.to ? line.to : Math.min(from + 1, transaction.state.doc.length)
        next =
          to > from
            ? Decoration.set([
                Decoration.mark({ class: "cm-hog-error", attributes: { "aria-invalid": "true" } }).range(from, to)
              ])
            : Decoration.none
      }
    }
    return next
  },
  provide: (field) => EditorView.decorations.from(field)
})

export const HogEditor = ({
  value,
  onChange,
  error,
  label
}: {
  readonly value: string
  readonly onChange: (text: string) => void
  readonly error: HogError | null
  readonly label: string
}) => {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(undefined)
  const latest = useRef(onChange)
  latest.current = onChange

  useEffect(() => {
    view.current = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          hog,
          syntaxHighlighting(defaultHighlightStyle),
          errorField,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ "aria-label": label }),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current(update.state.doc.toString())
          })
        ]
      })
    })
    return () => view.current?.destroy()
    // Created once; a new `value` from outside (a template) replaces the text below.
  }, [])

  useEffect(() => {
    const editor = view.current
    if (editor && editor.state.doc.toString() !== value)
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } })
  }, [value])

  useEffect(() => {
    view.current?.dispatch({ effects: setError.of(error) })
  }, [error])

  return <div ref={host} className="editor hog-editor" />
}

/** The line and column in an API message: `… (line 3, column 7)`. */
export const errorPosition = (detail: string): HogError | null => {
  const match = /\(line (\d+), column (\d+)\)/.exec(detail)
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null
}
