import { Effect, Option } from "effect"
import { StorageError } from "../StorageError.js"
import { type StoredSurvey, SurveyStore } from "../SurveyStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredSurvey & { readonly project_id: number; readonly order: number }

const strip = ({ order: _, project_id: __, ...rest }: Owned): StoredSurvey => rest

/** As SQL orders: newest first, ties by insertion. */
const newestFirst = (a: Owned, b: Owned) => b.created_at.getTime() - a.created_at.getTime() || b.order - a.order

export const makeMemorySurveys = (journal: Journal) => {
  const surveys = new Map<string, Owned>()
  let order = 0
  const key = (projectId: number, id: string) => `${projectId}:${id}`
  const inProject = (projectId: number) => [...surveys.values()].filter((s) => s.project_id === projectId)
  // What the SQL store's unique index reports: a conflict.
  const nameTaken = (projectId: number, name: string, except?: string) =>
    inProject(projectId).some((s) => s.name === name && s.id !== except)
      ? Effect.fail(new StorageError({ message: `a survey named ${name} exists`, conflict: true }))
      : Effect.void

  return SurveyStore.of({
    list: (projectId, query) =>
      Effect.sync(() => {
        const search = query.search?.toLowerCase()
        const all = inProject(projectId)
          .filter(
            (s) =>
              (query.archived === undefined || s.archived === query.archived) &&
              (search === undefined || [s.name, s.description].some((t) => t.toLowerCase().includes(search)))
          )
          .sort(newestFirst)
        return { count: all.length, results: all.slice(query.offset, query.offset + query.limit).map(strip) }
      }),
    unarchived: (projectId) =>
      Effect.sync(() =>
        inProject(projectId)
          .filter((s) => !s.archived)
          .sort(newestFirst)
          .map(strip)
      ),
    get: (projectId, id) =>
      Effect.sync(() => Option.fromNullable(surveys.get(key(projectId, id))).pipe(Option.map(strip))),
    create: (projectId, input) =>
      Effect.flatMap(nameTaken(projectId, input.name), () =>
        Effect.sync(() => {
          const now = new Date()
          const survey: Owned = { ...input, project_id: projectId, order: order++, created_at: now, updated_at: now }
          journal.set(surveys, key(projectId, input.id), survey)
          return strip(survey)
        })
      ),
    update: (projectId, id, patch) =>
      Effect.suspend(() => {
        const survey = surveys.get(key(projectId, id))
        if (survey === undefined) return Effect.succeed(Option.none())
        return Effect.flatMap(patch.name === undefined ? Effect.void : nameTaken(projectId, patch.name, id), () =>
          Effect.sync(() => {
            const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
            const next: Owned = { ...survey, ...defined, updated_at: new Date() }
            journal.set(surveys, key(projectId, id), next)
            return Option.some(strip(next))
          })
        )
      }),
    remove: (projectId, id) =>
      Effect.sync(() => {
        if (!surveys.has(key(projectId, id))) return false
        journal.delete(surveys, key(projectId, id))
        return true
      })
  })
}
