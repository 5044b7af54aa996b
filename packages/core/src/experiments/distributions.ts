// The distributions the experiment statistics need, computed here rather than taken from a library:
// the normal, Student's t and chi-square distributions (from the error function, the regularized
// incomplete beta and gamma functions, as in Press et al., Numerical Recipes, 3rd ed., §6.1–6.4),
// and a seeded random source with normal, gamma and beta draws, so that a result is the same each
// time it is computed from the same counts.

/** The complementary error function (Numerical Recipes' Chebyshev fit: fractional error below 1.2e-7). */
const erfc = (x: number): number => {
  const z = Math.abs(x)
  const t = 1 / (1 + 0.5 * z)
  const coefficients = [
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223,
    0.17087277
  ]
  const series = coefficients.reduceRight((acc, c) => c + t * acc, 0)
  const poly = -z * z + series
  const r = t * Math.exp(poly)
  return x >= 0 ? r : 2 - r
}

/** P(Z ≤ x) for a standard normal Z. */
export const normalCdf = (x: number): number => 0.5 * erfc(-x / Math.SQRT2)

/** The x with P(Z ≤ x) = p (Acklam's rational approximation, refined by one Halley step). */
export const normalQuantile = (p: number): number => {
  if (p <= 0) return Number.NEGATIVE_INFINITY
  if (p >= 1) return Number.POSITIVE_INFINITY
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783
  ]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const low = 0.02425
  let x: number
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p))
    const v =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    x = p < low ? v : -v
  } else {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  }
  const e = normalCdf(x) - p
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2)
  return x - u / (1 + (x * u) / 2)
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms). */
export const logGamma = (x: number): number => {
  const g = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
    12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x)
  const z = x - 1
  let sum = g[0]!
  for (let i = 1; i < 9; i++) sum += g[i]! / (z + i)
  const t = z + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum)
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
const betaFraction = (a: number, b: number, x: number): number => {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  d = 1 / (Math.abs(d) < tiny ? tiny : d)
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    for (const aa of [
      (m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
      (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    ]) {
      d = 1 + aa * d
      d = 1 / (Math.abs(d) < tiny ? tiny : d)
      c = 1 + aa / c
      if (Math.abs(c) < tiny) c = tiny
      h *= d * c
    }
    if (Math.abs(d * c - 1) < 1e-15) break
  }
  return h
}

/** The regularized incomplete beta function I_x(a, b). */
export const incompleteBeta = (x: number, a: number, b: number): number => {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
export const tCdf = (t: number, df: number): number => {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/** The t with P(T ≤ t) = p, by bisection on the distribution function. */
export const tQuantile = (p: number, df: number): number => {
  if (!Number.isFinite(df)) return normalQuantile(p)
  let [lo, hi] = [-1, 1]
  while (tCdf(lo, df) > p && lo > -1e300) lo *= 2
  while (tCdf(hi, df) < p && hi < 1e300) hi *= 2
  for (let i = 0; i < 2000 && hi - lo > 1e-12 * Math.max(1, Math.abs(lo)); i++) {
    const mid = (lo + hi) / 2
    if (tCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/** The regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x). */
export const upperGamma = (a: number, x: number): number => {
  if (x <= 0) return 1
  const logFront = -x + a * Math.log(x) - logGamma(a)
  if (x < a + 1) {
    // The series for P(a, x).
    let term = 1 / a
    let sum = term
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-16; n++) {
      term *= x / (a + n)
      sum += term
    }
    return 1 - sum * Math.exp(logFront)
  }
  // The continued fraction for Q(a, x) (modified Lentz).
  const tiny = 1e-300
  let b = x + 1 - a
  let c = 1 / tiny
  let d = 1 / b
  let h = d
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a)
    b += 2
    d = an * d + b
    d = 1 / (Math.abs(d) < tiny ? tiny : d)
    c = b + an / c
    if (Math.abs(c) < tiny) c = tiny
    h *= d * c
    if (Math.abs(d * c - 1) < 1e-15) break
  }
  return Math.exp(logFront) * h
}

/** P(X ≥ x) for a chi-square X with `df` degrees of freedom. */
export const chiSquareSurvival = (x: number, df: number): number => upperGamma(df / 2, x / 2)

/** A seeded source of uniform numbers in [0, 1) (mulberry32) with the draws built on it. */
export const randomSource = (seed: number) => {
  let state = seed >>> 0
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  let spare: number | undefined
  /** A standard normal draw (Box–Muller, both values used). */
  const normal = (): number => {
    if (spare !== undefined) {
      const s = spare
      spare = undefined
      return s
    }
    const u = 1 - uniform()
    const v = uniform()
    const r = Math.sqrt(-2 * Math.log(u))
    spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
  /** A Gamma(shape, 1) draw (Marsaglia and Tsang, 2000; shapes below 1 boosted by U^(1/shape)). */
  const gamma = (shape: number): number => {
    if (shape < 1) return gamma(shape + 1) * uniform() ** (1 / shape)
    const d = shape - 1 / 3
    const c = 1 / Math.sqrt(9 * d)
    for (;;) {
      const x = normal()
      const v = (1 + c * x) ** 3
      if (v <= 0) continue
      const u = 1 - uniform()
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v
    }
  }
  /** A Beta(a, b) draw, as X / (X + Y) of two gamma draws. */
  const beta = (a: number, b: number): number => {
    const x = gamma(a)
    return x / (x + gamma(b))
  }
  return { uniform, normal, gamma, beta }
}
export type RandomSource = ReturnType<typeof randomSource>
