import type { ReactNode } from "react"

/** An ordered list of `noun`s edited in place: each removable while there are more than `min`, and
 * one more added as `blank`. `children` draws an item's fields, given how to replace it. */
export const ItemList = <T,>({
  legend,
  noun,
  items,
  min,
  blank,
  onChange,
  children
}: {
  readonly legend: string
  readonly noun: string
  readonly items: ReadonlyArray<T>
  readonly min: number
  readonly blank: T
  readonly onChange: (items: ReadonlyArray<T>) => void
  readonly children: (item: T, index: number, set: (item: T) => void) => ReactNode
}) => (
  <fieldset>
    <legend>{legend}</legend>
    <ol className="series-list">
      {items.map((item, i) => (
        <li key={i} className="toolbar">
          {children(item, i, (next) => onChange(items.map((other, j) => (j === i ? next : other))))}
          {items.length > min && (
            <button type="button" onClick={() => onChange(items.filter((_, j) => j !== i))}>
              Remove {noun} {i + 1}
            </button>
          )}
        </li>
      ))}
    </ol>
    <button type="button" onClick={() => onChange([...items, blank])}>
      Add {noun}
    </button>
  </fieldset>
)
