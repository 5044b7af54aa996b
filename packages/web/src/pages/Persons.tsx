import { useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import type { Paginated, Person } from "../api.js"
import { pathQuery, personsPath } from "../queries.js"

export const personLabel = (person: Person) =>
  String(person.properties["email"] ?? person.properties["name"] ?? person.distinct_ids[0] ?? person.uuid)

export const PersonsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [property, setProperty] = useState("")
  const persons = useQuery({
    ...pathQuery<Paginated<Person>>(personsPath(id, search, property)),
    placeholderData: (previous) => previous
  })
  return (
    <section className="page" aria-labelledby="persons-title">
      <h1 id="persons-title">Persons</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Person filters">
        <label>
          Search
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="e-mail or distinct id"
          />
        </label>
        <label>
          Property
          <input value={property} onChange={(e) => setProperty(e.target.value)} placeholder="plan=pro" />
        </label>
      </form>
      {persons.error && (
        <p role="alert" className="error">
          {persons.error.message}
        </p>
      )}
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Distinct ids</th>
            <th scope="col">First seen</th>
          </tr>
        </thead>
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
    </section>
  )
}
