import { Cache, Context, Duration, Effect, Layer, Option } from "effect"
import { QueryRunner, type QueryRunError } from "../queries/runner.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { SurveyStore } from "../services/SurveyStore.js"
import { responsesQuery } from "./results.js"

// How many responses a survey has had, for its response limit: counted with ZedQL and kept half a
// minute, since posthog-js asks for a project's surveys on page loads.

export class SurveyResponses extends Context.Tag("@zed/core/SurveyResponses")<
  SurveyResponses,
  {
    readonly count: (projectId: number, surveyId: string) => Effect.Effect<number, QueryRunError>
  }
>() {}

const CAPACITY = 1000
const FRESH_FOR = Duration.seconds(30)

export const SurveyResponsesLive = Layer.effect(
  SurveyResponses,
  Effect.gen(function* () {
    const runner = yield* QueryRunner
    const projects = yield* ProjectStore
    const surveys = yield* SurveyStore
    const counts = yield* Cache.make({
      capacity: CAPACITY,
      timeToLive: FRESH_FOR,
      lookup: (key: string) =>
        Effect.gen(function* () {
          const [projectId, surveyId] = [Number(key.slice(0, key.indexOf("/"))), key.slice(key.indexOf("/") + 1)]
          const project = yield* projects.get(projectId)
          const survey = yield* surveys.get(projectId, surveyId)
          if (Option.isNone(project) || Option.isNone(survey)) return 0
          const [row] = yield* runner.select(project.value, responsesQuery(survey.value))
          return Number(row?.[0] ?? 0)
        })
    })
    return SurveyResponses.of({ count: (projectId, surveyId) => counts.get(`${projectId}/${surveyId}`) })
  })
)
