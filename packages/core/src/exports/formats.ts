import { csvCell } from "../domain/csv.js"
import type { ExportFormat } from "./exportEntity.js"

// How an export's rows are written, a piece at a time: what opens the file (given its columns),
// each row, what closes it.

export interface RowWriter {
  readonly open: (columns: ReadonlyArray<string>) => string
  readonly row: (columns: ReadonlyArray<string>, values: ReadonlyArray<unknown>, first: boolean) => string
  readonly close: (any: boolean) => string
}

const object = (columns: ReadonlyArray<string>, values: ReadonlyArray<unknown>) =>
  JSON.stringify(Object.fromEntries(columns.map((column, i) => [column, values[i] ?? null])))

export const WRITERS: Readonly<Record<ExportFormat, RowWriter>> = {
  "text/csv": {
    open: (columns) => `${columns.map(csvCell).join(",")}\r\n`,
    row: (_, values) => `${values.map(csvCell).join(",")}\r\n`,
    close: () => ""
  },
  // One JSON array, an object a line.
  "application/json": {
    open: () => "[",
    row: (columns, values, first) => `${first ? "\n" : ",\n"}${object(columns, values)}`,
    close: (any) => (any ? "\n]\n" : "]\n")
  },
  // JSON lines: an object a line.
  "application/jsonl": {
    open: () => "",
    row: (columns, values) => `${object(columns, values)}\n`,
    close: () => ""
  }
}

/** The file name's extension for a format. */
export const EXTENSIONS: Readonly<Record<ExportFormat, string>> = {
  "text/csv": "csv",
  "application/json": "json",
  "application/jsonl": "jsonl"
}
