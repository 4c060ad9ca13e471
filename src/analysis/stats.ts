/**
 * The statistics the families and the experiments share: the one place for quantiles, Poisson and
 * binomial tails, and the interval checks built on them.
 *
 * - Normal quantile: Acklam's rational approximation (relative error below 1.2e-9 over (0, 1)).
 *   The Bonferroni z values (`zTwoSided`, `zOneSided`) come from it. It replaced a bisection on
 *   Abramowitz & Stegun 7.1.26 (erfc to 1.5e-7 absolute: a worse relative error in the far tails
 *   a Bonferroni correction reaches).
 * - Student t quantile: the t distribution function through the regularized incomplete beta
 *   function (continued fraction, modified Lentz), inverted by bisection to double precision. It
 *   replaced a three-decimal table of t_{0.995, df} for df ≤ 30 with an ad-hoc form beyond, a fixed
 *   "conservative" 3.17, and a two-term Cornish–Fisher expansion from the normal quantile, which
 *   understates t at few degrees of freedom (7.24 against 9.92 for t_{0.995, 2}). The exact inverse is
 *   right at every df, so a 99 % interval is one whatever the number of runs.
 * - Binomial checks: the experiments test a measured proportion against a predicted p with the
 *   normal approximation of the score test, |p̂ − p| ≤ z·√(p(1 − p)/n) (+ a slack the caller
 *   names): the acceptance region whose inversion in p is Wilson's interval. No experiment uses
 *   Clopper–Pearson.
 * - Poisson: tails summed in log space (no underflow of e^{−λ} at large λ), and the two-sided test
 *   2·min(P(X ≤ x), P(X ≥ x)) for counts too rare for a t interval.
 * - ln Γ (Lanczos), and the binomial expectations built on it.
 */

/** The arithmetic mean of a non-empty list. */
export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** The sample standard deviation (n − 1 in the denominator; 0 for fewer than two values). */
export function sampleSd(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
}

/** The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number): number =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13 here). */
export function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Σ_N Binom(n, q)(N)·f(N) over the range that carries the mass (40 standard deviations). */
export function binomialExpectation(n: number, q: number, f: (N: number) => number): number {
  if (n === 0) return f(0);
  if (q >= 1) return f(n);
  const mu = n * q;
  const sd = Math.sqrt(n * q * (1 - q));
  const lo = Math.max(0, Math.floor(mu - 40 * sd - 10));
  const hi = Math.min(n, Math.ceil(mu + 40 * sd + 10));
  const lnq = Math.log(q);
  const ln1q = Math.log1p(-q);
  const lnN = lnGamma(n + 1);
  let s = 0;
  for (let N = lo; N <= hi; N++) {
    const lp = lnN - lnGamma(N + 1) - lnGamma(n - N + 1) + N * lnq + (n - N) * ln1q;
    s += Math.exp(lp) * f(N);
  }
  return s;
}

/** The two-sided z of confidence `conf` holding for `tests` comparisons together (Bonferroni). */
export function zTwoSided(conf = 0.99, tests = 1): number {
  return normalQuantile(1 - (1 - conf) / (2 * Math.max(1, tests)));
}

/** The one-sided z of confidence `conf` holding for `tests` comparisons together (Bonferroni). */
export function zOneSided(conf = 0.99, tests = 1): number {
  return normalQuantile(1 - (1 - conf) / Math.max(1, tests));
}

/**
 * The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz;
 * Numerical Recipes §6.4), taken on the side of x where it converges fast.
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  if (x > (a + 1) / (a + b + 2)) return 1 - (front * betaFraction(1 - x, b, a)) / b;
  return (front * betaFraction(x, a, b)) / a;
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const clamp = (v: number): number => (Math.abs(v) < tiny ? tiny : v);
  let c = 1;
  let d = 1 / clamp(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    const even = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 / clamp(1 + even * d);
    c = clamp(1 + even / c);
    h *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 / clamp(1 + odd * d);
    c = clamp(1 + odd / c);
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return h;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The Student t quantile t_{p, df}: the exact distribution function inverted by bisection. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`studentTQuantile: p = ${p} is not in (0, 1)`);
  if (!(df > 0)) throw new Error(`studentTQuantile: df = ${df} is not positive`);
  if (df === Infinity) return normalQuantile(p);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = Math.max(1, normalQuantile(p));
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Mean and half-width of the two-sided interval of confidence `conf` (Student t, n − 1 degrees of
 * freedom) of the mean of independent values; with `tests` > 1 the intervals hold together
 * (Bonferroni). At least two values.
 */
export function meanInterval(xs: readonly number[], conf = 0.99, tests = 1): { mean: number; half: number } {
  const n = xs.length;
  if (n < 2) throw new Error('meanInterval: needs at least two values');
  const t = studentTQuantile(1 - (1 - conf) / (2 * Math.max(1, tests)), n - 1);
  return { mean: mean(xs), half: (t * sampleSd(xs)) / Math.sqrt(n) };
}

/** ln P(X = i) for X ~ Poisson(λ), λ > 0. */
function lnPoisson(i: number, lambda: number): number {
  return -lambda + i * Math.log(lambda) - lnGamma(i + 1);
}

/** P(X ≤ k) for X ~ Poisson(λ), summed in log space. */
export function poissonCdf(k: number, lambda: number): number {
  if (k < 0) return 0;
  if (lambda <= 0) return 1;
  if (k > lambda) return Math.max(0, 1 - poissonUpperTail(k + 1, lambda));
  let s = 0;
  for (let i = Math.floor(k); i >= 0; i--) {
    const t = Math.exp(lnPoisson(i, lambda));
    s += t;
    if (t < s * 1e-17) break;
  }
  return Math.min(1, s);
}

/** P(X ≥ c) for X ~ Poisson(λ), summed in log space. */
export function poissonUpperTail(c: number, lambda: number): number {
  if (c <= 0) return 1;
  if (lambda <= 0) return 0;
  if (c <= lambda) return Math.max(0, 1 - poissonCdf(c - 1, lambda));
  let s = 0;
  for (let i = Math.ceil(c); ; i++) {
    const t = Math.exp(lnPoisson(i, lambda));
    s += t;
    if (t < s * 1e-17 || t === 0) break;
  }
  return Math.min(1, s);
}

/**
 * The two-sided Poisson test: is a count of `hits` plausible (p-value 2·min(P(X ≤ hits),
 * P(X ≥ hits)) at least `alpha`) under a mean of `expected`?
 */
export function poissonPlausible(hits: number, expected: number, alpha = 0.01): boolean {
  if (expected <= 0) return hits === 0;
  return 2 * Math.min(poissonCdf(hits, expected), poissonUpperTail(hits, expected)) >= alpha;
}

/**
 * Is a predicted value consistent with per-unit measurements? `diffs` are the units' (measured −
 * predicted), `hits` and `expected` their total count and its predicted mean. The mean difference's
 * Student t interval (99 %, Bonferroni over `tests`) holds 0, or — for counts too rare for a t
 * interval, or fewer than three units — the two-sided Poisson test on the total passes.
 */
export function consistentDiffs(diffs: readonly number[], hits: number, expected: number, tests = 1): boolean {
  if (diffs.length >= 3) {
    const { mean: m, half } = meanInterval(diffs, 0.99, tests);
    if (Math.abs(m) <= half) return true;
  }
  return poissonPlausible(hits, expected, 0.01 / Math.max(1, tests));
}

/** The standard deviation of a proportion over n trials of probability p: √(max(p(1 − p), floor)/n). */
export function proportionSd(p: number, n: number, varianceFloor = 0): number {
  return Math.sqrt(Math.max(p * (1 - p), varianceFloor) / n);
}

/**
 * Bounds of the two-sided acceptance region of confidence `conf` for a proportion measured over n
 * trials when p is predicted (normal approximation of the score test); with `tests` > 1 the
 * regions hold together (Bonferroni).
 */
export function proportionInterval(p: number, n: number, conf = 0.99, tests = 1): [number, number] {
  const half = zTwoSided(conf, tests) * proportionSd(p, n, 1e-12);
  return [p - half, p + half];
}

/** |hits/n − p| within z standard deviations of a proportion over n trials, plus `slack`. */
export function proportionWithin(hits: number, n: number, p: number, z: number, slack = 0, varianceFloor = 0): boolean {
  return Math.abs(hits / n - p) <= z * proportionSd(p, n, varianceFloor) + slack;
}
