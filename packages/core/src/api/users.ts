import { Effect } from "effect"
import type { User, UserBasic as UserBasicSchema } from "../domain/models.js"

type UserBasic = typeof UserBasicSchema.Type
import { UserStore } from "../services/UserStore.js"

export const basicUser = ({
  current_project_id: _,
  is_active: __,
  organization_id: ___,
  level: ____,
  date_joined: _____,
  ...basic
}: User): UserBasic => basic

/** The users behind these ids (one lookup), as the embedded user objects of API responses. */
export const userLookup = (ids: ReadonlyArray<number | null>) =>
  Effect.gen(function* () {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))]
    const users = new Map((yield* (yield* UserStore).getMany(wanted)).map((u) => [u.id, basicUser(u)]))
    return (id: number | null): UserBasic | null => (id === null ? null : (users.get(id) ?? null))
  })
