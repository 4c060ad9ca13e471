/**
 * Analytics of the persistent Bloom filters (Peng et al. §3.1, §5): the false-positive rate of a
 * temporal range query for SBF, PBF-1 and PBF-2, the bit allocations (equal split, β-opt by the
 * Lagrange conditions Eq. 10 with Eq. 12 / Eq. 13), the hash count per filter (§7) and the space
 * bound of Theorem 5.5 (Eq. 14).
 *
 * A filter here is a partitioned Bloom filter (k slices of s bits, model.ts), whose false-positive
 * rate after d distinct items is exactly (1 − (1 − 1/s)^d)^k in expectation (slice j takes d
 * uniform throws, slices independent); for s·k = m it is the paper's Eq. 2, (1 − e^{−kd/m})^k, up
 * to O(1/s). The range formulas multiply the non-false-positive rates of the filters probed, as the
 * paper does (Eq. 4, Eq. 6, Theorem 5.3): the probes of one query meet distinct items, so they are
 * independent up to the same O(1/s).
 */
import { canonicalCover } from './model.js';

/** Upper limit of hash functions per filter (§7: k_max = 16). */
export const K_MAX = 16;
export const LN2 = Math.LN2;
const LN2SQ = LN2 * LN2;

/** False-positive rate of one filter of k slices of s bits after d distinct items (1 for a filter without bits). */
export function filterFp(k: number, sliceBits: number, d: number): number {
  if (k <= 0 || sliceBits <= 0) return 1;
  return (1 - Math.pow(1 - 1 / sliceBits, d)) ** k;
}

/** §7: k_i = ⌈(m_i/d_i) ln 2⌉, at least 1, at most k_max (0 for a filter without bits). */
export function hashesFor(bits: number, d: number, kMax = K_MAX): number {
  if (bits < 1) return 0;
  if (d <= 0) return 1;
  return Math.max(1, Math.min(kMax, Math.ceil((bits / d) * LN2)));
}

/** Eq. 4: SBF's range-query rate, 1 − (1 − p(b))^{|q|}. */
export function sbfRangeFp(p: number, q: number): number {
  return 1 - Math.pow(1 - p, q);
}

/** Eq. 8 / Theorem 5.3: a PBF-2 query on [s, e] is a false positive unless every cover probe is not. */
export function pbf2QueryFp(s: number, e: number, timeBits: number, pAtHeight: (h: number) => number): number {
  let keep = 1;
  for (const iv of canonicalCover(s, e, timeBits)) keep *= 1 - pAtHeight(iv.height);
  return 1 - keep;
}

/**
 * Start times of the analytic averages: every s with s + |q| <= T, or 4096 of them spread by the
 * golden ratio when there are more (an even stride would sample only even s — never a leaf probe
 * at the start — so the strides are not used).
 */
function starts(T: number, q: number): number[] {
  const n = T - q + 1;
  if (n <= 0) return [];
  if (n <= 4096) return Array.from({ length: n }, (_, s) => s);
  const phi = (Math.sqrt(5) - 1) / 2;
  return Array.from({ length: 4096 }, (_, i) => Math.floor(((i * phi + 0.5) % 1) * n));
}

/** PBF-2's range-query rate for length |q|, averaged over the query's position in [0, T). */
export function pbf2RangeFp(T: number, timeBits: number, q: number, pAtHeight: (h: number) => number): number {
  const ss = starts(T, q);
  return ss.reduce((sum, s) => sum + pbf2QueryFp(s, s + q - 1, timeBits, pAtHeight), 0) / ss.length;
}

/** f_ℓ of §5.2 for a uniform workload of length |q|: the mean probes per query at each height (each <= 2). */
export function probesPerLevel(T: number, timeBits: number, q: number): number[] {
  const f = new Array<number>(timeBits + 1).fill(0);
  const ss = starts(T, q);
  for (const s of ss) for (const iv of canonicalCover(s, s + q - 1, timeBits)) f[iv.height]! += 1;
  return f.map((x) => x / ss.length);
}

/** Mean probes of a PBF-2 query of length |q| (the cover's size; the pipeline issues them in 2 cycles). */
export function pbf2Probes(T: number, timeBits: number, q: number): number {
  return probesPerLevel(T, timeBits, q).reduce((a, b) => a + b, 0);
}

/** SBF's mt-queries with short-circuit evaluation (stop at the first 1): Σ_{i<|q|} (1 − p)^i. */
export function sbfProbes(p: number, q: number): number {
  return p <= 0 ? q : (1 - Math.pow(1 - p, q)) / p;
}

/**
 * β-opt (§5.1, Eq. 10–12; §5.2, Eq. 13): bits m_i = d_i/ln²2 · ln(1 + f_i ln²2/(μ d_i)) with μ = −λ
 * > 0 chosen so that Σ m_i = m (bisection on log μ; Σ m_i falls as μ grows). A filter with d_i = 0
 * or f_i = 0 gets 0 bits (§5.1: "this bloom filter is useless … should not be assigned any bits").
 */
export function betaOpt(d: readonly number[], f: readonly number[], m: number): number[] {
  const bitsAt = (mu: number): number[] =>
    d.map((di, i) => (di > 0 && f[i]! > 0 ? (di / LN2SQ) * Math.log1p((f[i]! * LN2SQ) / (mu * di)) : 0));
  const total = (mu: number): number => bitsAt(mu).reduce((a, b) => a + b, 0);
  if (!d.some((di, i) => di > 0 && f[i]! > 0)) return d.map(() => m / d.length);
  let lo = -60;
  let hi = 30;
  for (let it = 0; it < 200; it++) {
    const mid = (lo + hi) / 2;
    if (total(Math.exp(mid)) > m) lo = mid;
    else hi = mid;
  }
  return bitsAt(Math.exp((lo + hi) / 2));
}

/**
 * Theorem 5.5 (Eq. 14): bits for range-query fp p, n distinct pairs, horizon T, query length |q|:
 * m = n log T · ln(1/(1 − (1 − p)^{1/(2 log|q|)})) / ln²2. (The printed equation multiplies by
 * ln²2; with Eq. 3 — m/n = −ln p/ln²2 bits per item for fp p — the factor divides: each of the
 * log T levels holds n items at the per-probe rate that 2 log |q| probes turn into p.)
 */
export function bitsForRangeFp(n: number, T: number, p: number, q: number): number {
  const probes = 2 * Math.max(1, Math.log2(q));
  const pb = 1 - Math.pow(1 - p, 1 / probes);
  return (n * Math.log2(T) * Math.log(1 / pb)) / LN2SQ;
}

/**
 * The least range-query rate β2-opt can have (Eq. 8 with Eq. 13's allocation) on any stream of n
 * distinct pairs over n' distinct keys, horizon T, for uniform queries of length |q| and m bits.
 * A level-h cell merges at most 2^h leaf cells of one key, so d_h ≥ max(n/2^h, n'); Eq. 8's rate
 * after the optimal allocation only grows with every d_h, so the densest stream — each key present
 * in every second of its stretches, d_h = max(⌈n/2^h⌉, n') — is the best case. Used to ask what
 * the paper's scale allows (§7: n = 2 127 749, n' = 25 497, T = 86 400, m = 2·10^7).
 */
export function pbf2BestCaseFp(n: number, keys: number, T: number, q: number, m: number): number {
  const D = Math.max(1, Math.ceil(Math.log2(T)));
  const f = probesPerLevel(T, D, q);
  const d = f.map((_, h) => Math.max(keys, Math.ceil(n / 2 ** h)));
  const bits = betaOpt(d, f, m);
  const p = bits.map((b, h) => {
    const k = hashesFor(Math.floor(b), d[h]!);
    return k === 0 ? 1 : filterFp(k, Math.floor(b / k), d[h]!);
  });
  return pbf2RangeFp(T, D, q, (h) => p[h]!);
}

/** The bits per distinct pair β2-opt needs for range-query rate p in that best case (bisection). */
export function pbf2BestCaseBits(n: number, keys: number, T: number, q: number, p: number): number {
  let lo = 0.5;
  let hi = 1024;
  for (let it = 0; it < 40; it++) {
    const mid = Math.sqrt(lo * hi);
    if (pbf2BestCaseFp(n, keys, T, q, mid * n) > p) lo = mid;
    else hi = mid;
  }
  return hi;
}
