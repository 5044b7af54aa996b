import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import type { Person } from "../api.js"
import { Field, Filters } from "../components/Field.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { personsPath } from "../pages.js"
import { useList } from "../queries.js"

export const personLabel = (person: Person) =>
  String(person.properties["email"] ?? person.properties["name"] ?? person.distinct_ids[0] ?? person.uuid)

export const PersonsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [property, setProperty] = useState("")
  const persons = useList<Person>(personsPath(id, search, property))
  return (
    <Page title="Persons">
      <Filters label="Person filters">
        <Field label="Search" type="search" value={search} onChange={setSearch} placeholder="e-mail or distinct id" />
        <Field label="Property" value={property} onChange={setProperty} placeholder="plan=pro" />
      </Filters>
      <ErrorAlert error={persons.error} />
      <table className="list">
        <ListHead columns={["Person", "Distinct ids", "First seen"]} />
        <tbody>
          {(persons.data?.results ?? []).map((person) => (
            <tr key={person.uuid}>
              <td>
                <Link
                  to="/project/$id/person/$distinctId"
                  params={{ id, distinctId: person.distinct_ids[0] ?? person.uuid }}
                >
                  {personLabel(person)}
                </Link>
              </td>
              <td>{person.distinct_ids.join(", ")}</td>
              <td>{new Date(person.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
