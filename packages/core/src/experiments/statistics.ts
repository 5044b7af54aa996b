import {
  chiSquareSurvival,
  normalCdf,
  normalQuantile,
  randomSource,
  type RandomSource,
  tCdf,
  tQuantile
} from "./distributions.js"

// The statistics of an experiment, from each variant's sums (docs/experiments.md states the method):
// - a variant's estimate: a conversion rate (funnels), a mean per exposed person (counts, sums of a
//   property) or a ratio of two sums (its variance by the delta method);
// - Bayesian: conversion rates have Beta(1, 1) priors and Beta posteriors; means and ratios a flat
//   prior and the normal posterior of the large-sample estimate. The chance to be best, the expected
//   loss and the credible interval of the effect come from seeded Monte Carlo draws of the posteriors;
// - frequentist: each test variant against control, the two-proportion z-test (pooled p-value,
//   unpooled interval) for conversion, Welch's t-test for means, a z-test for ratios; with several
//   test variants a Bonferroni correction (p-values times their number, intervals at 1 − α/m);
// - sample-ratio mismatch: Pearson's chi-square of the exposures against the planned split.

export type MetricModel = "proportion" | "mean" | "ratio"

/** What a variant's exposed persons add up to for one metric. */
export interface VariantSums {
  readonly key: string
  /** Exposed persons. */
  readonly n: number
  /** Σ of the per-person value (conversions for a proportion; the numerator for a ratio). */
  readonly sum: number
  /** Σ of its squares. */
  readonly sumSquares: number
  /** Ratios: Σ of the per-person denominator, of its squares, and of numerator × denominator. */
  readonly denominatorSum?: number | undefined
  readonly denominatorSumSquares?: number | undefined
  readonly crossSum?: number | undefined
}

export interface Estimate {
  readonly value: number
  /** The variance of the estimate (not of a person's value). */
  readonly variance: number
}

/** A variant's estimate and the variance of that estimate. */
export const estimate = (model: MetricModel, v: VariantSums): Estimate => {
  if (v.n === 0) return { value: 0, variance: Number.NaN }
  const mean = v.sum / v.n
  if (model === "proportion") return { value: mean, variance: (mean * (1 - mean)) / v.n }
  const sampleVariance = (sum: number, squares: number) =>
    v.n > 1 ? (squares - v.n * (sum / v.n) ** 2) / (v.n - 1) : 0
  if (model === "mean") return { value: mean, variance: Math.max(0, sampleVariance(v.sum, v.sumSquares)) / v.n }
  const y = v.denominatorSum ?? 0
  if (y === 0) return { value: 0, variance: Number.NaN }
  const ratio = v.sum / y
  const meanY = y / v.n
  const covariance = v.n > 1 ? ((v.crossSum ?? 0) - v.n * mean * meanY) / (v.n - 1) : 0
  const varX = sampleVariance(v.sum, v.sumSquares)
  const varY = sampleVariance(y, v.denominatorSumSquares ?? 0)
  return {
    value: ratio,
    variance: Math.max(0, (varX - 2 * ratio * covariance + ratio * ratio * varY) / (v.n * meanY * meanY))
  }
}

export interface Interval {
  readonly lower: number
  readonly upper: number
}

export interface FrequentistResult {
  readonly key: string
  /** The test variant's estimate minus control's. */
  readonly difference: number
  /** Its confidence interval, at the corrected level. */
  readonly difference_interval: Interval
  /** The difference relative to control's estimate, with a delta-method interval at the corrected level. */
  readonly relative_effect: number | null
  readonly relative_interval: Interval | null
  readonly statistic: number
  /** Welch's degrees of freedom (means), none for z-tests. */
  readonly degrees_of_freedom: number | null
  readonly p_value: number
  /** The p-value times the number of test variants (Bonferroni), at most 1. */
  readonly adjusted_p_value: number
  readonly significant: boolean
}

/** The interval of test / control − 1. With both estimates positive, on the log of the ratio
 * (Katz et al. 1978): the ratio's sampling distribution is skewed, and a symmetric interval around
 * it reaches below −100 % and disagrees with the test on small samples. Otherwise the delta
 * method on the ratio itself. */
const relativeInterval = (t: Estimate, c: Estimate, critical: number): Interval | null => {
  if (c.value === 0) return null
  if (t.value > 0 && c.value > 0) {
    const logSe = Math.sqrt(t.variance / t.value ** 2 + c.variance / c.value ** 2)
    const log = Math.log(t.value / c.value)
    if (!Number.isFinite(logSe)) return null
    return { lower: Math.exp(log - critical * logSe) - 1, upper: Math.exp(log + critical * logSe) - 1 }
  }
  const relative = t.value / c.value - 1
  const se = Math.sqrt(t.variance / c.value ** 2 + (t.value ** 2 * c.variance) / c.value ** 4)
  return Number.isFinite(se) ? { lower: relative - critical * se, upper: relative + critical * se } : null
}

/** Each test variant against control (the first of `variants`), Bonferroni-corrected over the test variants. */
export const frequentist = (
  model: MetricModel,
  variants: ReadonlyArray<VariantSums>,
  alpha = 0.05
): ReadonlyArray<FrequentistResult> => {
  const [control, ...tests] = variants
  if (control === undefined) return []
  const m = Math.max(1, tests.length)
  const level = 1 - alpha / m / 2
  const c = estimate(model, control)
  return tests.map((test) => {
    const t = estimate(model, test)
    const difference = t.value - c.value
    const se = Math.sqrt(t.variance + c.variance)
    let statistic: number
    let p: number
    let df: number | null = null
    let critical: number
    if (model === "proportion") {
      // The p-value under the null's pooled rate; the interval from each rate's own variance.
      const pooled = (test.sum + control.sum) / (test.n + control.n)
      const se0 = Math.sqrt(pooled * (1 - pooled) * (1 / test.n + 1 / control.n))
      statistic = se0 > 0 ? difference / se0 : 0
      p = 2 * (1 - normalCdf(Math.abs(statistic)))
      critical = normalQuantile(level)
    } else if (model === "mean") {
      df = (t.variance + c.variance) ** 2 / (t.variance ** 2 / (test.n - 1) + c.variance ** 2 / (control.n - 1))
      statistic = se > 0 ? difference / se : 0
      p = se > 0 ? 2 * (1 - tCdf(Math.abs(statistic), df)) : 1
      critical = Number.isFinite(df) && df > 0 ? tQuantile(level, df) : normalQuantile(level)
      if (!Number.isFinite(df)) df = null
    } else {
      statistic = se > 0 ? difference / se : 0
      p = se > 0 ? 2 * (1 - normalCdf(Math.abs(statistic))) : 1
      critical = normalQuantile(level)
    }
    if (!Number.isFinite(p)) p = 1
    const relative = c.value !== 0 ? t.value / c.value - 1 : null
    return {
      key: test.key,
      difference,
      difference_interval: { lower: difference - critical * se, upper: difference + critical * se },
      relative_effect: relative,
      relative_interval: relativeInterval(t, c, critical),
      statistic,
      degrees_of_freedom: df,
      p_value: p,
      adjusted_p_value: Math.min(1, p * m),
      significant: p * m < alpha
    }
  })
}

export interface BayesianResult {
  readonly key: string
  /** The posterior probability that this variant is the best of all (the highest, or lowest when lower is better). */
  readonly chance_to_win: number
  /** The expected shortfall from the best variant when choosing this one, in the metric's units. */
  readonly expected_loss: number
  /** The posterior mean of the estimate. */
  readonly posterior_mean: number
  /** Against control (none for control): the relative effect's posterior median and credible interval. */
  readonly relative_effect: number | null
  readonly credible_interval: Interval | null
  /** The posterior probability that the variant beats control. */
  readonly chance_to_beat_control: number | null
  readonly significant: boolean
}

export interface BayesianOptions {
  /** Monte Carlo draws per variant. */
  readonly draws?: number
  readonly seed?: number
  /** The credible interval's mass. */
  readonly credibility?: number
  /** Lower is better (e.g. a count of errors). */
  readonly lowerIsBetter?: boolean
  /** A test variant is significant when its chance to beat control passes this. */
  readonly threshold?: number
}

/** A posterior draw of a variant's estimate. */
const posterior = (model: MetricModel, v: VariantSums, random: RandomSource): (() => number) => {
  if (model === "proportion") return () => random.beta(1 + v.sum, 1 + v.n - v.sum)
  const e = estimate(model, v)
  const sd = Number.isFinite(e.variance) ? Math.sqrt(e.variance) : 0
  return () => e.value + sd * random.normal()
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  if (sorted.length === 0) return Number.NaN
  const at = q * (sorted.length - 1)
  const lo = Math.floor(at)
  const hi = Math.min(sorted.length - 1, lo + 1)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo)
}

/** Every variant's chance to be best and expected loss, and each test variant's effect against control (the first). */
export const bayesian = (
  model: MetricModel,
  variants: ReadonlyArray<VariantSums>,
  options: BayesianOptions = {}
): ReadonlyArray<BayesianResult> => {
  const draws = options.draws ?? 20_000
  const random = randomSource(options.seed ?? 1)
  const credibility = options.credibility ?? 0.95
  const sign = options.lowerIsBetter ? -1 : 1
  const samplers = variants.map((v) => posterior(model, v, random))
  const samples = variants.map(() => new Float64Array(draws))
  const wins = variants.map(() => 0)
  const losses = variants.map(() => 0)
  for (let d = 0; d < draws; d++) {
    let best = 0
    for (let i = 0; i < variants.length; i++) {
      samples[i]![d] = samplers[i]!()
      if (sign * samples[i]![d]! > sign * samples[best]![d]!) best = i
    }
    wins[best]! += 1
    for (let i = 0; i < variants.length; i++) losses[i]! += sign * (samples[best]![d]! - samples[i]![d]!)
  }
  const control = samples[0]
  return variants.map((v, i) => {
    const mine = samples[i]!
    const mean = mine.reduce((s, x) => s + x, 0) / draws
    if (i === 0 || control === undefined) {
      return {
        key: v.key,
        chance_to_win: wins[i]! / draws,
        expected_loss: losses[i]! / draws,
        posterior_mean: mean,
        relative_effect: null,
        credible_interval: null,
        chance_to_beat_control: null,
        significant: false
      }
    }
    const lifts = Array.from(mine, (x, d) => x / control[d]! - 1)
      .filter(Number.isFinite)
      .sort((a, b) => a - b)
    const beats = mine.reduce((s, x, d) => s + (sign * x > sign * control[d]! ? 1 : 0), 0) / draws
    const tail = (1 - credibility) / 2
    const threshold = options.threshold ?? 0.95
    return {
      key: v.key,
      chance_to_win: wins[i]! / draws,
      expected_loss: losses[i]! / draws,
      posterior_mean: mean,
      relative_effect: quantile(lifts, 0.5),
      credible_interval: { lower: quantile(lifts, tail), upper: quantile(lifts, 1 - tail) },
      chance_to_beat_control: beats,
      significant: beats >= threshold || beats <= 1 - threshold
    }
  })
}

export interface SampleRatio {
  readonly chi_square: number
  readonly degrees_of_freedom: number
  readonly p_value: number
  /** p below 0.001: the exposures do not follow the planned split (a threshold common in practice). */
  readonly mismatch: boolean
  readonly expected: ReadonlyArray<{ readonly key: string; readonly expected: number; readonly observed: number }>
}

export const SRM_THRESHOLD = 0.001

/** Pearson's chi-square goodness of fit of the exposures to the planned split (percentages). */
export const sampleRatioMismatch = (
  observed: ReadonlyArray<{ readonly key: string; readonly n: number; readonly percentage: number }>
): SampleRatio => {
  const total = observed.reduce((s, o) => s + o.n, 0)
  const weight = observed.reduce((s, o) => s + o.percentage, 0)
  const expected = observed.map((o) => ({
    key: o.key,
    expected: weight > 0 ? (total * o.percentage) / weight : 0,
    observed: o.n
  }))
  const chi = expected.reduce((s, e) => (e.expected > 0 ? s + (e.observed - e.expected) ** 2 / e.expected : s), 0)
  const df = Math.max(1, observed.length - 1)
  const p = total === 0 ? 1 : chiSquareSurvival(chi, df)
  return { chi_square: chi, degrees_of_freedom: df, p_value: p, mismatch: p < SRM_THRESHOLD, expected }
}

export interface SampleSizeInput {
  /** Control's conversion rate (0–1), for conversion metrics. */
  readonly baseline_rate?: number | undefined
  /** For means: control's mean and the standard deviation of a person's value. */
  readonly baseline_mean?: number | undefined
  readonly standard_deviation?: number | undefined
  /** The smallest relative change worth detecting, in percent (e.g. 10 for ±10 %). */
  readonly minimum_detectable_effect: number
  /** Variants including control. */
  readonly variants: number
  readonly alpha?: number | undefined
  readonly power?: number | undefined
  /** Exposures a day across all variants: gives the running time. */
  readonly daily_exposures?: number | undefined
}

export interface SampleSize {
  readonly per_variant: number
  readonly total: number
  readonly days: number | null
  readonly alpha: number
  readonly power: number
}

/**
 * Persons per variant for a two-sided test of each test variant against control to find the
 * minimum detectable effect with the given power, at the Bonferroni-corrected level:
 * n = (z₁₋α/2m + z_power)² · (σ₁² + σ₂²) / δ².
 */
export const sampleSize = (input: SampleSizeInput): SampleSize => {
  const alpha = input.alpha ?? 0.05
  const power = input.power ?? 0.8
  const m = Math.max(1, input.variants - 1)
  const z = normalQuantile(1 - alpha / m / 2) + normalQuantile(power)
  const relative = input.minimum_detectable_effect / 100
  let spread: number
  let delta: number
  if (input.baseline_rate !== undefined) {
    const p1 = input.baseline_rate
    const p2 = Math.min(1, p1 * (1 + relative))
    spread = p1 * (1 - p1) + p2 * (1 - p2)
    delta = p2 - p1
  } else {
    const sd = input.standard_deviation ?? 0
    spread = 2 * sd * sd
    delta = (input.baseline_mean ?? 0) * relative
  }
  const perVariant = delta === 0 ? Number.POSITIVE_INFINITY : Math.ceil((z * z * spread) / (delta * delta))
  const total = perVariant * input.variants
  const days =
    input.daily_exposures === undefined || input.daily_exposures <= 0 || !Number.isFinite(total)
      ? null
      : Math.ceil(total / input.daily_exposures)
  return { per_variant: perVariant, total, days, alpha, power }
}
