import {
  ApiKeyStore,
  OrganizationStore,
  ProjectStore,
  SessionStore,
  type StorageError,
  type StorageServices,
  UserStore
} from "@zed/core/storage"
import { Context, Effect, Option } from "effect"

/** Entries kept at most per cache; past it the cache starts over. */
const CAPACITY = 1000

const makeCache = <K, V>() => {
  const entries = new Map<K, V>()
  return {
    clear: () => entries.clear(),
    /** Found values are kept; absent ones are not, so unknown keys cannot fill the cache. */
    through: (key: K, read: Effect.Effect<Option.Option<V>, StorageError>) =>
      Effect.suspend(() => {
        const hit = entries.get(key)
        if (hit !== undefined) return Effect.succeed(Option.some(hit))
        return Effect.tap(read, (found) => {
          if (Option.isNone(found)) return
          if (entries.size >= CAPACITY) entries.clear()
          entries.set(key, found.value)
        })
      })
  }
}

/** The store with every function but `reads` wrapped by `clearing`. */
const clearingWrites = <S extends Record<string, unknown>>(
  store: S,
  clearing: <Args extends Array<any>, B, E>(
    write: (...args: Args) => Effect.Effect<B, E>
  ) => (...args: Args) => Effect.Effect<B, E>,
  reads: Partial<S>
): S =>
  ({
    ...Object.fromEntries(
      Object.entries(store).map(([name, f]) => [name, typeof f === "function" ? clearing(f as any) : f])
    ),
    ...reads
  }) as S

/**
 * Caches the reads every API request makes (its key or session with its user, its project) for a store that
 * this process alone writes: PGlite. There a running ZedQL query holds the one session, and without
 * these no request could even authenticate until it ended, not even the poll or the cancel of that
 * query. Any write through the account stores clears them; with no other writer, that is exact.
 */
export const cacheRequestReads = (context: Context.Context<StorageServices>): Context.Context<StorageServices> => {
  const keys = Context.get(context, ApiKeyStore)
  const projects = Context.get(context, ProjectStore)
  const users = Context.get(context, UserStore)
  const organizations = Context.get(context, OrganizationStore)
  const sessions = Context.get(context, SessionStore)
  const sessionsByDigest = makeCache<
    string,
    Option.Option.Value<Effect.Effect.Success<ReturnType<typeof sessions.find>>>
  >()
  const byDigest = makeCache<
    string,
    Option.Option.Value<Effect.Effect.Success<ReturnType<typeof keys.findBySecureValue>>>
  >()
  const byId = makeCache<number, Option.Option.Value<Effect.Effect.Success<ReturnType<typeof projects.get>>>>()
  const clearing =
    <Args extends Array<any>, B, E>(write: (...args: Args) => Effect.Effect<B, E>) =>
    (...args: Args) =>
      Effect.ensuring(
        write(...args),
        Effect.sync(() => {
          byDigest.clear()
          byId.clear()
          sessionsByDigest.clear()
        })
      )
  return context.pipe(
    Context.add(
      ApiKeyStore,
      clearingWrites(keys, clearing, {
        findBySecureValue: (digest) => byDigest.through(digest, keys.findBySecureValue(digest)),
        list: keys.list,
        get: keys.get
      })
    ),
    Context.add(
      ProjectStore,
      clearingWrites(projects, clearing, {
        get: (id) => byId.through(id, projects.get(id)),
        findByApiToken: projects.findByApiToken,
        list: projects.list
      })
    ),
    Context.add(
      UserStore,
      clearingWrites(users, clearing, {
        get: users.get,
        getMany: users.getMany,
        findByEmail: users.findByEmail,
        first: users.first,
        list: users.list,
        passwordHash: users.passwordHash
      })
    ),
    Context.add(
      OrganizationStore,
      clearingWrites(organizations, clearing, { get: organizations.get, any: organizations.any })
    ),
    Context.add(
      SessionStore,
      clearingWrites(sessions, clearing, {
        find: (digest) => sessionsByDigest.through(digest, sessions.find(digest))
      })
    )
  )
}
