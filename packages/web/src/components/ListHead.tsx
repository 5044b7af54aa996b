/** A list table's header row: one column heading per name. */
export const ListHead = ({ columns }: { readonly columns: ReadonlyArray<string> }) => (
  <thead>
    <tr>
      {columns.map((column) => (
        <th key={column} scope="col">
          {column}
        </th>
      ))}
    </tr>
  </thead>
)
