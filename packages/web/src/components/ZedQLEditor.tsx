import { autocompletion, type CompletionContext } from "@codemirror/autocomplete"
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands"
import { PostgreSQL, sql } from "@codemirror/lang-sql"
import { defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language"
import { EditorSelection, EditorState, Prec } from "@codemirror/state"
import { EditorView, keymap, lineNumbers, placeholder } from "@codemirror/view"
import { useEffect, useRef } from "react"

// ZedQL's virtual tables and their fields (docs/zedql.md), for completion.
const TABLES: Record<string, ReadonlyArray<string>> = {
  events: [
    "uuid",
    "event",
    "properties",
    "timestamp",
    "distinct_id",
    "person_id",
    "created_at",
    "elements_chain",
    "$session_id",
    "$window_id",
    "person",
    "session"
  ],
  persons: ["id", "created_at", "properties", "is_identified"],
  person_distinct_ids: ["distinct_id", "person_id", "person"],
  sessions: [
    "session_id",
    "distinct_id",
    "$start_timestamp",
    "$end_timestamp",
    "$entry_current_url",
    "$pageview_count"
  ],
  session_replay_events: ["session_id", "distinct_id", "min_first_timestamp", "max_last_timestamp"],
  groups: ["index", "key", "created_at", "properties"]
}

export interface ZedQLEditorProps {
  readonly initial: string
  readonly onChange: (text: string) => void
  readonly onRun: () => void
  /** Property names seen in the project, completed after `properties.`. */
  readonly propertyNames: ReadonlyArray<string>
  /** A range of the text to select and show, e.g. where an error is. */
  readonly mark?: { readonly from: number; readonly to: number } | undefined
}

export const ZedQLEditor = ({ initial, onChange, onRun, propertyNames, mark }: ZedQLEditorProps) => {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(undefined)
  const latest = useRef({ onChange, onRun, propertyNames })
  latest.current = { onChange, onRun, propertyNames }

  useEffect(() => {
    const properties = (context: CompletionContext) => {
      const word = context.matchBefore(/properties\.[\w$]*/)
      if (word === null) return null
      return {
        from: word.from + "properties.".length,
        options: latest.current.propertyNames.map((label) => ({ label, type: "property" })),
        validFor: /^[\w$]*$/
      }
    }
    const language = sql({
      dialect: PostgreSQL,
      schema: TABLES as Record<string, Array<string>>,
      upperCaseKeywords: true
    })
    view.current = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          lineNumbers(),
          history(),
          language,
          language.language.data.of({ autocomplete: properties }),
          autocompletion(),
          syntaxHighlighting(defaultHighlightStyle),
          placeholder("SELECT event, count() FROM events GROUP BY event"),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ "aria-label": "ZedQL query" }),
          Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (latest.current.onRun(), true) }])),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString())
          })
        ]
      })
    })
    return () => view.current?.destroy()
    // The editor is created once; `initial` only seeds it.
  }, [])

  useEffect(() => {
    const editor = view.current
    if (editor === undefined || mark === undefined) return
    const length = editor.state.doc.length
    editor.dispatch({
      selection: EditorSelection.range(Math.min(mark.from, length), Math.min(mark.to, length)),
      scrollIntoView: true
    })
  }, [mark])

  return <div ref={host} className="editor" />
}

/** Line and column (from 1) of an offset in `text`. */
export const lineAndColumn = (text: string, offset: number) => {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: before[before.length - 1]!.length + 1 }
}

/** Replaces the editor's text, e.g. from the history. */
export const setEditorText = (host: HTMLElement | null, text: string) => {
  const editor = host && EditorView.findFromDOM(host)
  editor?.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } })
}
