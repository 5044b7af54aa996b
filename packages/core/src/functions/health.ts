import { Context, Layer } from "effect"

// A function's `status` as PostHog reports it: `state` 0 unknown, 1 healthy, 2 degraded (3 and 4,
// disabled by the system, Zed never does), `rating` the share of recent invocations that succeeded,
// `tokens` how many recent invocations that share is over. Kept per process, over the last WINDOW.

export interface FunctionStatus {
  readonly state: 0 | 1 | 2
  readonly tokens: number
  readonly rating: number
}

const WINDOW = 100
/** Below this share of successes a function is degraded. */
const HEALTHY = 0.9

export const UNKNOWN_STATUS: FunctionStatus = { state: 0, tokens: 0, rating: 0 }

export class FunctionHealth extends Context.Tag("@zed/core/FunctionHealth")<
  FunctionHealth,
  {
    readonly record: (functionId: string, succeeded: boolean) => void
    readonly status: (functionId: string) => FunctionStatus
  }
>() {}

export const makeFunctionHealth = (): FunctionHealth["Type"] => {
  const recent = new Map<string, Array<boolean>>()
  return {
    record: (functionId, succeeded) => {
      const outcomes = recent.get(functionId) ?? []
      outcomes.push(succeeded)
      if (outcomes.length > WINDOW) outcomes.shift()
      recent.set(functionId, outcomes)
    },
    status: (functionId) => {
      const outcomes = recent.get(functionId)
      if (outcomes === undefined || outcomes.length === 0) return UNKNOWN_STATUS
      const rating = outcomes.filter(Boolean).length / outcomes.length
      return { state: rating >= HEALTHY ? 1 : 2, tokens: outcomes.length, rating }
    }
  }
}

export const FunctionHealthLive = Layer.sync(FunctionHealth, makeFunctionHealth)
