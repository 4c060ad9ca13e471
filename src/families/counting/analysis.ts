/**
 * Analytics of counting and spectral Bloom filters in the hardware's partitioned layout (k banks
 * of c counters, one counter per bank per key, independent hashes).
 *
 * - False positives (the libBf manual, "Basic", with the partitioned layout): a bank's counter of a
 *   never-inserted key is non-zero after n distinct inserts with probability 1 − (1 − 1/c)^n, so
 *   fp = (1 − (1 − 1/c)^n)^k. Exact for MS without removes; an upper bound for MI (MI leaves a
 *   subset of MS's counters non-zero: a counter MI increments is one MS increments too). RM's
 *   primary filter is an MS filter; its answer may come from the secondary filter when the primary
 *   has a single zero, which this formula does not count (the experiment measures RM).
 * - Counter overflow (Fan, Cao, Almeida, Broder, "Summary Cache: A Scalable Wide-Area Web Cache
 *   Sharing Protocol", SIGCOMM '98 / IEEE/ACM ToN 2000, §V-C): the count of a counter is
 *   Binomial(nk, 1/m) in a filter of m counters, so Pr(max count ≥ j) ≤ m·C(nk, j)·m^−j ≤
 *   m·(e·n·k/(j·m))^j, which at the optimal k = (m/n) ln 2 is their m·(e ln 2 / j)^j; a w-bit
 *   counter overflows at j = 2^w (w = 4: ≤ 1.37·10^−15·m, their figure). In the partitioned
 *   layout a counter's count is Binomial(n, 1/c) with c = m/k: the same mean and the same bound.
 *   Beside it, the exact binomial tail Pr(Binomial(n, 1/c) ≥ 2^w) of one counter, the expected
 *   number of counters at or past it, and the union bound m·tail.
 * - Expected count error of MS (derived here, not from a paper): a key of true count f reads
 *   min(2^w − 1, f + min_i N_i), where N_i is the count the other keys put on its counter in bank
 *   i — a sum over the other keys y of f_y·Bernoulli(1/c), independent across the k banks. So
 *   E[estimate − f] = Σ_{t=1}^{2^w−1−f} Pr(N ≥ t)^k for f ≤ 2^w − 1 (and 2^w − 1 − f, an
 *   undercount, above it). The distribution of N is computed exactly by convolution over the keys.
 */

/** fp of a partitioned counting filter: (1 − (1 − 1/c)^n)^k. */
export function countingFp(n: number, cellsPerBank: number, k: number): number {
  return (-Math.expm1(n * Math.log1p(-1 / cellsPerBank))) ** k;
}

/** ln C(n, j) via lgamma-free summation of logs (exact enough for the tails below). */
function logBinom(n: number, j: number): number {
  let s = 0;
  for (let i = 0; i < j; i++) s += Math.log(n - i) - Math.log(i + 1);
  return s;
}

/**
 * Fan et al.'s bound on the probability that some counter reaches j = 2^w after n inserts into
 * m = k·c counters: m·(e·n·k/(j·m))^j (Summary Cache §V-C; m·(e ln 2/j)^j at k = (m/n) ln 2).
 */
export function fanOverflowBound(n: number, m: number, k: number, counterBits: number): number {
  const j = 2 ** counterBits;
  return m * Math.exp(j * Math.log((Math.E * n * k) / (j * m)));
}

/** Pr(Binomial(n, p) ≥ j), summed in log space from j up while the terms matter. */
export function binomialTail(n: number, p: number, j: number): number {
  if (j <= 0) return 1;
  if (j > n) return 0;
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  let logTerm = logBinom(n, j) + j * lp + (n - j) * lq;
  let sum = 0;
  for (let i = j; i <= n; i++) {
    const t = Math.exp(logTerm);
    sum += t;
    if (t < sum * 1e-17 && i > n * p) break;
    logTerm += Math.log(n - i) - Math.log(i + 1) + lp - lq;
  }
  return Math.min(1, sum);
}

export interface OverflowFigures {
  /** Fan et al.'s bound (may exceed 1: it is a bound). */
  fanBound: number;
  /** Pr(one counter's count ≥ 2^w), exact. */
  counterTail: number;
  /** Expected counters whose count reaches 2^w: m·tail. */
  expectedOverflowing: number;
  /** Union bound on Pr(some counter overflows): min(1, m·tail). */
  unionBound: number;
}

/** Overflow figures for n distinct inserts into k banks of c counters of w bits. */
export function overflowFigures(n: number, cellsPerBank: number, k: number, counterBits: number): OverflowFigures {
  const m = k * cellsPerBank;
  const tail = binomialTail(n, 1 / cellsPerBank, 2 ** counterBits);
  return {
    fanBound: fanOverflowBound(n, m, k, counterBits),
    counterTail: tail,
    expectedOverflowing: m * tail,
    unionBound: Math.min(1, m * tail),
  };
}

/**
 * The distribution of N = Σ_y f_y·Bernoulli(p) over the given counts, for N = 0..T (the mass at T
 * and above is kept in the last entry): exact convolution, one key at a time.
 */
export function collisionDistribution(counts: readonly number[], p: number, T: number): Float64Array {
  let dist = new Float64Array(T + 1);
  dist[0] = 1;
  let next = new Float64Array(T + 1);
  for (const f of counts) {
    if (f <= 0) continue;
    next.fill(0);
    for (let t = 0; t <= T; t++) {
      const d = dist[t]!;
      if (d === 0) continue;
      next[t]! += (1 - p) * d;
      next[Math.min(T, t + f)]! += p * d;
    }
    [dist, next] = [next, dist];
  }
  return dist;
}

/**
 * Expected MS estimate error (estimate − true count) averaged over the distinct keys of a stream
 * with the given true counts, for k banks of c counters of w bits (insert-only, saturating). For a
 * key of count f the other keys' distribution is the whole stream's with the key's own term
 * divided out (exact below the cap: dist_x[t] = (dist[t] − p·dist_x[t − f]) / (1 − p)).
 */
export function expectedMsError(
  counts: readonly number[],
  cellsPerBank: number,
  k: number,
  counterBits: number,
): number {
  const max = 2 ** counterBits - 1;
  const p = 1 / cellsPerBank;
  const dist = collisionDistribution(counts, p, max);
  const perCount = new Map<number, number>();
  const errorOf = (f: number): number => {
    if (f >= max) return max - f;
    const known = perCount.get(f);
    if (known !== undefined) return known;
    const own = new Float64Array(max - f);
    let below = 0; // Pr(N_x < t)
    let e = 0;
    for (let t = 0; t < max - f; t++) {
      own[t] = (dist[t]! - (t >= f ? p * own[t - f]! : 0)) / (1 - p);
      below += own[t]!;
      // t + 1 ≤ max − f: Pr(N_x ≥ t + 1)^k.
      e += Math.max(0, 1 - below) ** k;
    }
    perCount.set(f, e);
    return e;
  };
  let sum = 0;
  let keys = 0;
  for (const f of counts) {
    if (f <= 0) continue;
    keys++;
    sum += errorOf(f);
  }
  return keys === 0 ? 0 : sum / keys;
}

/** Expected MS error of a key inserted once among n distinct keys inserted once each. */
export function expectedMsErrorDistinct(n: number, cellsPerBank: number, k: number, counterBits: number): number {
  const max = 2 ** counterBits - 1;
  let e = 0;
  for (let t = 1; t <= max - 1; t++) {
    const term = binomialTail(n - 1, 1 / cellsPerBank, t) ** k;
    e += term;
    if (term < 1e-18) break;
  }
  return e;
}
