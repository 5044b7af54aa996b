import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  chiSquareSurvival,
  logGamma,
  normalCdf,
  normalQuantile,
  randomSource,
  tCdf,
  tQuantile
} from "../src/experiments/distributions.js"
import {
  bayesian,
  estimate,
  frequentist,
  sampleRatioMismatch,
  sampleSize,
  type VariantSums
} from "../src/experiments/statistics.js"

// The experiment statistics against independent references: published table values of the
// distributions, textbook formulas written out here, the closed form of P(B > A) for two Beta
// posteriors (Evan Miller, "Formulas for Bayesian A/B Testing", 2014), and simulations with a known
// effect (power near its design) and with none (false positives near α).

const proportion = (key: string, n: number, conversions: number): VariantSums => ({
  key,
  n,
  sum: conversions,
  sumSquares: conversions
})

const logBeta = (a: number, b: number) => logGamma(a) + logGamma(b) - logGamma(a + b)

/** P(p_B > p_A) for p_A ~ Beta(αA, βA), p_B ~ Beta(αB, βB), αB an integer (Miller, 2014). */
const chanceBBeatsA = (aA: number, bA: number, aB: number, bB: number) => {
  let total = 0
  for (let i = 0; i < aB; i++) {
    total += Math.exp(logBeta(aA + i, bB + bA) - Math.log(bB + i) - logBeta(1 + i, bB) - logBeta(aA, bA))
  }
  return total
}

describe("distributions against published tables", () => {
  it("normal, t and chi-square quantiles and tails", () => {
    // Standard tables (e.g. NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7).
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 6)
    expect(normalCdf(-2.326347874)).toBeCloseTo(0.01, 6)
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 6)
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621234, 6)
    expect(normalQuantile(0.0001)).toBeCloseTo(-3.719016485, 5)
    expect(tQuantile(0.975, 10)).toBeCloseTo(2.228138852, 6)
    expect(tQuantile(0.95, 5)).toBeCloseTo(2.015048373, 6)
    expect(tCdf(2.086, 20)).toBeCloseTo(0.975, 4)
    expect(chiSquareSurvival(3.841458821, 1)).toBeCloseTo(0.05, 6)
    expect(chiSquareSurvival(5.991464547, 2)).toBeCloseTo(0.05, 6)
    expect(chiSquareSurvival(16.26623615, 3)).toBeCloseTo(0.001, 6)
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 10)
  })

  it("quantile and distribution function invert each other", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }),
        fc.double({ min: 1, max: 500, noNaN: true }),
        (p, df) => {
          expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6)
          expect(tCdf(tQuantile(p, df), df)).toBeCloseTo(p, 6)
        }
      )
    )
  })

  it("the seeded gamma and beta draws have their distributions' means and variances", () => {
    const random = randomSource(7)
    const n = 40_000
    const draws = Array.from({ length: n }, () => random.beta(3, 7))
    const mean = draws.reduce((s, x) => s + x, 0) / n
    const variance = draws.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)
    expect(mean).toBeCloseTo(0.3, 2)
    expect(variance).toBeCloseTo((3 * 7) / (100 * 11), 3)
  })
})

describe("frequentist tests against textbook formulas", () => {
  it("two-proportion z-test: pooled p-value, unpooled Wald interval", () => {
    const control = proportion("control", 1000, 100)
    const test = proportion("test", 1000, 130)
    const [r] = frequentist("proportion", [control, test])
    const pooled = 230 / 2000
    const z = (0.13 - 0.1) / Math.sqrt(pooled * (1 - pooled) * (2 / 1000))
    expect(r!.statistic).toBeCloseTo(z, 10)
    // Two-sided p for z = 2.1059…: 0.0352 (normal table).
    expect(r!.p_value).toBeCloseTo(0.0352, 3)
    const se = Math.sqrt((0.1 * 0.9) / 1000 + (0.13 * 0.87) / 1000)
    expect(r!.difference_interval.lower).toBeCloseTo(0.03 - 1.959964 * se, 5)
    expect(r!.difference_interval.upper).toBeCloseTo(0.03 + 1.959964 * se, 5)
    expect(r!.significant).toBe(true)
  })

  it("the relative effect's interval is the risk ratio's log interval (Katz), which agrees with the test on small samples", () => {
    // 10 of 18 converted against 5 of 22: the textbook form se(ln RR) = √(1/a − 1/n₁ + 1/b − 1/n₂).
    const [r] = frequentist("proportion", [proportion("control", 22, 5), proportion("test", 18, 10)])
    const rr = 10 / 18 / (5 / 22)
    const se = Math.sqrt(1 / 10 - 1 / 18 + 1 / 5 - 1 / 22)
    expect(r!.relative_effect).toBeCloseTo(rr - 1, 10)
    expect(r!.relative_interval!.lower).toBeCloseTo(rr * Math.exp(-1.959964 * se) - 1, 5)
    expect(r!.relative_interval!.upper).toBeCloseTo(rr * Math.exp(1.959964 * se) - 1, 5)
    // p ≈ 0.032: significant, and the interval of the relative effect lies above 0 (a symmetric
    // delta-method interval, about −69 % to +358 %, did not).
    expect(r!.significant).toBe(true)
    expect(r!.relative_interval!.lower).toBeGreaterThan(0)
    // Never below −100 %, whatever the counts.
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 500 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n - 1 }))),
        fc.integer({ min: 2, max: 500 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n - 1 }))),
        ([cn, cs], [tn, ts]) => {
          const [x] = frequentist("proportion", [proportion("control", cn, cs), proportion("test", tn, ts)])
          expect(x!.relative_interval!.lower).toBeGreaterThan(-1)
          expect(x!.relative_interval!.lower).toBeLessThanOrEqual(x!.relative_effect!)
          expect(x!.relative_interval!.upper).toBeGreaterThanOrEqual(x!.relative_effect!)
        }
      )
    )
  })

  it("Welch's t-test on means, with Welch–Satterthwaite degrees of freedom", () => {
    // Two samples whose sums the test computes from the values themselves.
    const a = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0]
    const b = [
      28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9,
      13.3
    ]
    const sums = (key: string, xs: ReadonlyArray<number>): VariantSums => ({
      key,
      n: xs.length,
      sum: xs.reduce((s, x) => s + x, 0),
      sumSquares: xs.reduce((s, x) => s + x * x, 0)
    })
    const [r] = frequentist("mean", [sums("control", a), sums("test", b)])
    const m = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + x, 0) / xs.length
    const v = (xs: ReadonlyArray<number>) => xs.reduce((s, x) => s + (x - m(xs)) ** 2, 0) / (xs.length - 1)
    const [va, vb] = [v(a) / a.length, v(b) / b.length]
    const t = (m(b) - m(a)) / Math.sqrt(va + vb)
    const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1))
    expect(r!.statistic).toBeCloseTo(t, 10)
    expect(r!.degrees_of_freedom).toBeCloseTo(df, 10)
    // The p-value from the t density integrated numerically (Simpson's rule), not the incomplete beta.
    const density = (x: number) =>
      Math.exp(
        logGamma((df + 1) / 2) -
          logGamma(df / 2) -
          0.5 * Math.log(df * Math.PI) -
          ((df + 1) / 2) * Math.log(1 + (x * x) / df)
      )
    const steps = 20_000
    const h = Math.abs(t) / steps
    let area = density(0) + density(Math.abs(t))
    for (let i = 1; i < steps; i++) area += (i % 2 === 1 ? 4 : 2) * density(i * h)
    expect(r!.p_value).toBeCloseTo(1 - 2 * ((area * h) / 3), 6)
  })

  it("Bonferroni: p-values times the number of test variants, wider intervals", () => {
    const variants = [proportion("control", 2000, 200), proportion("a", 2000, 240), proportion("b", 2000, 210)]
    const [one] = frequentist("proportion", variants.slice(0, 2))
    const [a, b] = frequentist("proportion", variants)
    expect(a!.p_value).toBeCloseTo(one!.p_value, 12)
    expect(a!.adjusted_p_value).toBeCloseTo(Math.min(1, 2 * one!.p_value), 12)
    expect(b!.adjusted_p_value).toBeLessThanOrEqual(1)
    const width = (i: { lower: number; upper: number }) => i.upper - i.lower
    expect(width(a!.difference_interval) / width(one!.difference_interval)).toBeCloseTo(
      normalQuantile(1 - 0.05 / 4) / normalQuantile(0.975),
      6
    )
  })

  it("ratio metrics: the delta-method variance of Σx / Σy", () => {
    const xs = [3, 0, 5, 2, 1, 4, 0, 6]
    const ys = [2, 1, 3, 2, 1, 3, 1, 4]
    const n = xs.length
    const v: VariantSums = {
      key: "control",
      n,
      sum: xs.reduce((s, x) => s + x, 0),
      sumSquares: xs.reduce((s, x) => s + x * x, 0),
      denominatorSum: ys.reduce((s, y) => s + y, 0),
      denominatorSumSquares: ys.reduce((s, y) => s + y * y, 0),
      crossSum: xs.reduce((s, x, i) => s + x * ys[i]!, 0)
    }
    const mx = v.sum / n
    const my = v.denominatorSum! / n
    const cov = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0) / (n - 1)
    const vx = xs.reduce((s, x) => s + (x - mx) ** 2, 0) / (n - 1)
    const vy = ys.reduce((s, y) => s + (y - my) ** 2, 0) / (n - 1)
    const r = mx / my
    const e = estimate("ratio", v)
    expect(e.value).toBeCloseTo(r, 12)
    expect(e.variance).toBeCloseTo((vx - 2 * r * cov + r * r * vy) / (n * my * my), 12)
  })
})

describe("Bayesian results against closed forms", () => {
  it("chance to win of two Beta posteriors matches Miller's formula within Monte Carlo error", () => {
    for (const [n, a, b] of [
      [1000, 100, 120],
      [500, 50, 50],
      [300, 40, 28]
    ] as const) {
      const results = bayesian("proportion", [proportion("control", n, a), proportion("test", n, b)], { draws: 40_000 })
      const exact = chanceBBeatsA(1 + a, 1 + n - a, 1 + b, 1 + n - b)
      // 40,000 draws: standard error at most 0.0025; four of them.
      expect(Math.abs(results[1]!.chance_to_win - exact)).toBeLessThan(0.01)
      expect(results[0]!.chance_to_win + results[1]!.chance_to_win).toBeCloseTo(1, 10)
    }
  })

  it("the credible interval of the lift and the expected loss agree with normal approximations for large counts", () => {
    const [n, a, b] = [20_000, 2000, 2300]
    const [control, test] = bayesian("proportion", [proportion("control", n, a), proportion("test", n, b)], {
      draws: 40_000
    })
    const [pa, pb] = [(1 + a) / (2 + n), (1 + b) / (2 + n)]
    const [va, vb] = [(pa * (1 - pa)) / n, (pb * (1 - pb)) / n]
    // Delta method for pb / pa − 1.
    const lift = pb / pa - 1
    const se = Math.sqrt(vb / pa ** 2 + (pb ** 2 * va) / pa ** 4)
    expect(test!.relative_effect!).toBeCloseTo(lift, 2)
    expect(test!.credible_interval!.lower).toBeCloseTo(lift - 1.96 * se, 2)
    expect(test!.credible_interval!.upper).toBeCloseTo(lift + 1.96 * se, 2)
    // Expected loss of choosing control: E[max(pb − pa, 0)] for a normal difference, σφ(μ/σ) + μΦ(μ/σ).
    const [mu, sd] = [pb - pa, Math.sqrt(va + vb)]
    const phi = Math.exp(-((mu / sd) ** 2) / 2) / Math.sqrt(2 * Math.PI)
    expect(control!.expected_loss).toBeCloseTo(sd * phi + mu * normalCdf(mu / sd), 4)
    expect(test!.chance_to_beat_control).toBeGreaterThan(0.99)
  })

  it("the same counts give the same result (seeded draws)", () => {
    const variants = [proportion("control", 400, 40), proportion("test", 400, 52)]
    expect(bayesian("proportion", variants)).toEqual(bayesian("proportion", variants))
  })
})

describe("sample size and sample-ratio mismatch", () => {
  it("sample size per variant from the textbook formula", () => {
    const s = sampleSize({ baseline_rate: 0.1, minimum_detectable_effect: 20, variants: 2, daily_exposures: 1000 })
    const z = 1.959963985 + 0.841621234
    const expected = Math.ceil((z * z * (0.1 * 0.9 + 0.12 * 0.88)) / 0.02 ** 2)
    expect(s.per_variant).toBe(expected)
    expect(s.days).toBe(Math.ceil((2 * expected) / 1000))
    const means = sampleSize({ baseline_mean: 50, standard_deviation: 20, minimum_detectable_effect: 5, variants: 3 })
    const z3 = normalQuantile(1 - 0.05 / 4) + normalQuantile(0.8)
    expect(means.per_variant).toBe(Math.ceil((z3 * z3 * 2 * 400) / 2.5 ** 2))
  })

  it("chi-square of the exposures against the planned split", () => {
    const srm = sampleRatioMismatch([
      { key: "control", n: 5000, percentage: 50 },
      { key: "test", n: 5400, percentage: 50 }
    ])
    const e = 5200
    expect(srm.chi_square).toBeCloseTo((200 ** 2 / e) * 2, 10)
    expect(srm.p_value).toBeCloseTo(chiSquareSurvival(srm.chi_square, 1), 12)
    expect(srm.mismatch).toBe(true)
    const fine = sampleRatioMismatch([
      { key: "control", n: 3310, percentage: 33 },
      { key: "a", n: 3350, percentage: 33 },
      { key: "b", n: 3440, percentage: 34 }
    ])
    expect(fine.degrees_of_freedom).toBe(2)
    expect(fine.mismatch).toBe(false)
  })
})

describe("simulations", () => {
  const binomial = (random: ReturnType<typeof randomSource>, n: number, p: number) => {
    let k = 0
    for (let i = 0; i < n; i++) if (random.uniform() < p) k++
    return k
  }

  it("a true effect of the designed size is found at about the designed power", () => {
    const design = sampleSize({ baseline_rate: 0.2, minimum_detectable_effect: 25, variants: 2 })
    const random = randomSource(2024)
    const runs = 400
    let found = 0
    for (let r = 0; r < runs; r++) {
      const n = design.per_variant
      const [r0] = frequentist("proportion", [
        proportion("control", n, binomial(random, n, 0.2)),
        proportion("test", n, binomial(random, n, 0.25))
      ])
      if (r0!.significant && r0!.difference > 0) found++
    }
    // Power 0.8 by design; 400 runs: standard error 0.02, allow four.
    expect(Math.abs(found / runs - 0.8)).toBeLessThan(0.08)
  })

  it("with no effect, the false-positive rate is near α (z-test and Welch's test)", () => {
    const random = randomSource(99)
    const runs = 600
    let zFalse = 0
    let tFalse = 0
    for (let r = 0; r < runs; r++) {
      const [z] = frequentist("proportion", [
        proportion("control", 500, binomial(random, 500, 0.3)),
        proportion("test", 500, binomial(random, 500, 0.3))
      ])
      if (z!.significant) zFalse++
      const sample = (key: string): VariantSums => {
        const xs = Array.from({ length: 60 }, () => 10 + 3 * random.normal())
        return { key, n: 60, sum: xs.reduce((s, x) => s + x, 0), sumSquares: xs.reduce((s, x) => s + x * x, 0) }
      }
      const [t] = frequentist("mean", [sample("control"), sample("test")])
      if (t!.significant) tFalse++
    }
    // α = 0.05; 600 runs: standard error 0.009, allow about three and a half.
    expect(Math.abs(zFalse / runs - 0.05)).toBeLessThan(0.032)
    expect(Math.abs(tFalse / runs - 0.05)).toBeLessThan(0.032)
  })

  it("with no effect, the Bayesian chance to beat control is about uniform (calls at 95 % about 10 % of the time, both tails)", () => {
    const random = randomSource(5)
    const runs = 300
    let called = 0
    for (let r = 0; r < runs; r++) {
      const [, test] = bayesian(
        "proportion",
        [proportion("control", 400, binomial(random, 400, 0.25)), proportion("test", 400, binomial(random, 400, 0.25))],
        { draws: 2000, seed: r + 1 }
      )
      if (test!.significant) called++
    }
    expect(Math.abs(called / runs - 0.1)).toBeLessThan(0.06)
  })
})
