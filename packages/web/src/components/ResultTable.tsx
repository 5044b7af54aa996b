import { useVirtualizer } from "@tanstack/react-virtual"
import { useEffect, useRef } from "react"

export const cellText = (value: unknown) =>
  value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value)

const ROW = 28

/** A query's result as the table and the chart draw it: column names, their types, and rows. */
export interface ResultData {
  readonly columns: ReadonlyArray<string>
  readonly types: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

/** Rows drawn only where the viewport is, so 50 000 results scroll as smoothly as 50. `onEnd`: the last
 * rows are in view (time to fetch more). */
export const ResultTable = ({ columns, types, rows, onEnd }: ResultData & { readonly onEnd?: () => void }) => {
  const scroller = useRef<HTMLDivElement>(null)
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 20
  })
  const lastDrawn = virtual.getVirtualItems().at(-1)?.index ?? -1
  const atEnd = rows.length > 0 && lastDrawn >= rows.length - 1
  const endHandler = useRef(onEnd)
  endHandler.current = onEnd
  // Once per arrival at the end (and again when rows were added and it is still in view).
  useEffect(() => {
    if (atEnd) endHandler.current?.()
  }, [atEnd, rows.length])
  const template = `repeat(${columns.length}, minmax(8rem, 1fr))`
  return (
    <div
      className="results"
      ref={scroller}
      role="table"
      aria-label="Query results"
      aria-rowcount={rows.length + 1}
      tabIndex={0}
    >
      <div className="results-head" role="row" style={{ gridTemplateColumns: template }}>
        {columns.map((column, i) => (
          <div role="columnheader" key={i}>
            {column} <span className="type">{types[i] ?? ""}</span>
          </div>
        ))}
      </div>
      <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
        {virtual.getVirtualItems().map((item) => (
          <div
            key={item.key}
            role="row"
            aria-rowindex={item.index + 2}
            className="results-row"
            style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)`, height: ROW }}
          >
            {rows[item.index]!.map((value, i) => (
              <div role="cell" key={i}>
                {cellText(value)}
              </div>
            ))}
          </div>
        ))}
      </div>
    </div>
  )
}

const csvField = (value: unknown) => {
  const text = cellText(value)
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const toCsv = (columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  [columns, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n"
