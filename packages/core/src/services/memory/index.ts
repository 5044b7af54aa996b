import { Effect, Layer } from "effect"
import { EventStore } from "../EventStore.js"
import { GroupStore } from "../GroupStore.js"
import { PersonStore } from "../PersonStore.js"
import type { ZedStorage } from "../Storage.js"
import { makeMemoryAccounts } from "./accounts.js"
import { makeMemoryEvents } from "./events.js"
import { makeMemoryGroups } from "./groups.js"
import { makeJournal } from "./journal.js"
import { makeMemoryPersons } from "./persons.js"

/**
 * Storage held in process memory, for domain tests without I/O; every call builds a fresh, empty
 * store. Transactions roll back like SQL ones (an undo journal), one at a time.
 */
export const memoryStorage = (): ZedStorage =>
  Layer.unwrapEffect(Effect.suspend(() => {
    const journal = makeJournal()
    return Effect.map(makeMemoryAccounts(journal), (accounts) =>
      Layer.mergeAll(
        ...accounts,
        Layer.succeed(EventStore, makeMemoryEvents(journal)),
        Layer.succeed(PersonStore, makeMemoryPersons(journal)),
        Layer.succeed(GroupStore, makeMemoryGroups(journal))
      ))
  }))
