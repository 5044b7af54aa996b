import { Effect, Option, Stream } from "effect"
import type { Zed } from "../createZed.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { UserStore } from "../services/UserStore.js"
import { exportProject } from "./exportProject.js"
import { TransferError } from "./format.js"
import { importProject, type ImportSummary } from "./importProject.js"

// `zed export` / `zed import` as promises over a running Zed: lines out to a writer that may make
// the stream wait (a file, stdout), lines in from any async source, neither held whole in memory.

/** Lines handed to `write` at a time. */
const LINES_PER_WRITE = 256

const noProject = (id: number) => new TransferError({ line: 0, detail: `there is no project ${id}` })

/** Writes project `projectId` in the transfer format; `write` is awaited before more is read. */
export const exportProjectTo = (
  zed: Pick<Zed, "run">,
  projectId: number,
  write: (text: string) => Promise<void>
): Promise<void> =>
  zed.run(
    Effect.gen(function* () {
      const project = yield* Effect.flatMap(ProjectStore, (p) => p.get(projectId))
      if (Option.isNone(project)) return yield* noProject(projectId)
      yield* exportProject(project.value).pipe(
        Stream.grouped(LINES_PER_WRITE),
        Stream.runForEach((lines) => Effect.promise(() => write([...lines].join(""))))
      )
    })
  )

/**
 * Reads a transfer stream (one line at a time, without line ends) into project `project`, or into a
 * new project of the first user's organization when none is given.
 */
export const importProjectFrom = (
  zed: Pick<Zed, "run">,
  lines: AsyncIterable<string>,
  options: { readonly project?: number | undefined } = {}
): Promise<ImportSummary> =>
  zed.run(
    Effect.gen(function* () {
      const target =
        options.project === undefined
          ? yield* Effect.flatMap(UserStore, (u) => u.first).pipe(
              Effect.flatMap(
                Option.match({
                  onNone: () => new TransferError({ line: 0, detail: "no user exists yet; start Zed once first" }),
                  onSome: (user) => Effect.succeed({ organization: user.organization_id })
                })
              )
            )
          : yield* Effect.flatMap(ProjectStore, (p) => p.get(options.project!)).pipe(
              Effect.flatMap(
                Option.match({
                  onNone: () => noProject(options.project!),
                  onSome: (project) => Effect.succeed({ project })
                })
              )
            )
      const stream = Stream.fromAsyncIterable(
        lines,
        (error) => new TransferError({ line: 0, detail: `reading the stream: ${(error as Error).message}` })
      )
      return yield* importProject(target, stream)
    })
  )
