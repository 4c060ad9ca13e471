/**
 * Analytics of the classic set filters: false positives after n inserts (exact and the
 * e^{-kn/m} approximation), the optimal k, bits per item for a target fp, and the accesses of a
 * query. Sources:
 * - libBf manual, "Basic": after n inserts a bit is set with probability 1 − (1 − 1/m)^{kn};
 *   P(E_B) = (1 − (1 − 1/m)^{kn})^k ≈ (1 − e^{−kn/m})^k; k* = ⌊(m/n)·ln 2⌋;
 *   m = −n·ln p/(ln 2)^2 bits for a target p at k*.
 * - APBF paper (Shtul, Baquero, Almeida) §4.1 and §4.2, Table 1: a partitioned filter of k
 *   slices of m/k bits; fill r = 1 − (1 − 1/(m/k))^n, fp = r^k; k = ⌈log2(1/p)⌉ at r = 1/2 with
 *   m/k = n/ln 2 per slice (bits/item k/ln 2); a query that returns false stops at the first 0.
 *
 * Derivations (ours; each states what is exact):
 * - Basic: the manual's P(E_B) takes the k probed bits as independent, each set with the
 *   expected fill. With X set bits after kn throws the exact rate is E[(X/m)^k] ≥ (E[X]/m)^k
 *   (Jensen), and the difference is O(k²·Var(X)/E[X]²) = O(k²/m) relative: 1e-4 for the 16 Kbit
 *   preset, far below what a measurement resolves. The analytics use the manual's form.
 * - Partitioned: slice i receives exactly n uniform throws (one per insert, from h_i alone) and
 *   the slices' fills are independent, so fp = Π_i E[fill_i] = (1 − (1 − k/m)^n)^k is exact.
 * - Blocked (b parts of B/b bits per block, one bit per part): the block of an insert is uniform
 *   over m/B blocks, so a block's load N is Binomial(n, B/m); given N, part p of the block has
 *   taken N uniform throws into B/b bits, independently of the other parts, so
 *   fp = Σ_N Binom(n, B/m)(N) · (1 − (1 − b/B)^N)^b exactly. (With the Poisson load instead of
 *   the binomial this is the APBF paper's §6 segment rate; Putze, Sanders, Singler 2007.) The
 *   e^{−kn/m} form with k = b is the fp of an unblocked filter with the same m and b: the
 *   blocked filter's fp is higher, since the load varies from block to block.
 */
import { binomialExpectation } from '../../analysis/stats.js';
import type { BloomParams } from './types.js';

/** Expected fraction of set bits of a `bits`-bit array after `throws` uniform throws: 1 − (1 − 1/bits)^throws. */
export function fillRatio(bits: number, throws: number): number {
  return -Math.expm1(throws * Math.log1p(-1 / bits));
}

/** Manual, "Basic": (1 − (1 − 1/m)^{kn})^k. */
export function fpBasic(m: number, k: number, n: number): number {
  return fillRatio(m, k * n) ** k;
}

/** Partitioned, exact: (1 − (1 − k/m)^n)^k (§4.1 with slices of m/k bits). */
export function fpPartitioned(m: number, k: number, n: number): number {
  return fillRatio(m / k, n) ** k;
}

/** Blocked, exact: Σ_N Binom(n, B/m)(N)·(1 − (1 − b/B)^N)^b. */
export function fpBlocked(m: number, B: number, b: number, n: number): number {
  return binomialExpectation(n, B / m, (N) => (N === 0 ? 0 : (-Math.expm1(N * Math.log1p(-b / B))) ** b));
}

/** The same with a Poisson block load of mean nB/m (the APBF paper's §6 form). */
export function fpBlockedPoisson(m: number, B: number, b: number, n: number): number {
  const lambda = (n * B) / m;
  let p = Math.exp(-lambda);
  let s = 0;
  for (let N = 0; N < 10 * lambda + 50; N++) {
    if (N > 0) p *= lambda / N;
    if (N > 0) s += p * (-Math.expm1(N * Math.log1p(-b / B))) ** b;
  }
  return s;
}

/** The approximation (1 − e^{−kn/m})^k (manual; k = b for the blocked filter). */
export function fpApprox(m: number, k: number, n: number): number {
  return (-Math.expm1((-k * n) / m)) ** k;
}

/** The exact false-positive rate of a config after n inserts (see the header for what "exact" means per variant). */
export function fpExact(p: BloomParams, n: number): number {
  switch (p.filter) {
    case 'basic':
      return fpBasic(p.bits, p.k, n);
    case 'partitioned':
      return fpPartitioned(p.bits, p.k, n);
    case 'blocked':
      return fpBlocked(p.bits, p.blockBits, p.k, n);
  }
}

/** Expected fraction of set bits a probe meets after n inserts (the same for every probe). */
export function probeFill(p: BloomParams, n: number): number {
  // Basic: kn throws into m bits. Partitioned: n throws into each slice of m/k bits. Blocked:
  // each column (m/b bits) takes exactly one uniform throw per insert.
  return p.filter === 'basic' ? fillRatio(p.bits, p.k * n) : fillRatio(p.bits / p.k, n);
}

/** Manual: k* = ⌊(m/n)·ln 2⌋ (at least 1). */
export function optimalK(m: number, n: number): number {
  return Math.max(1, Math.floor((m / n) * Math.LN2));
}

/** Manual: bits per item for a target fp at k*, m/n = −ln p/(ln 2)^2. */
export function bitsPerItemFor(p: number): number {
  return -Math.log(p) / Math.LN2 ** 2;
}

/** §4.1: k = ⌈log2(1/p)⌉ slices at fill 1/2 (Table 1). */
export function slicesFor(p: number): number {
  return Math.ceil(Math.log2(1 / p) - 1e-12);
}

/** §4.1: bits per item of k slices filled to 1/2 (m/k = n/ln 2 per slice): k/ln 2 (Table 1). */
export function halfFillBitsPerItem(k: number): number {
  return k / Math.LN2;
}

/**
 * Mean probes read by a query that returns false when reading stops at the first 0 and each
 * probe is set with probability r independently: Σ_{i=1..k} i·r^{i−1}(1 − r) / (1 − r^k). At
 * r = 1/2 it is §4.2's 2^k/(2^k − 1)·Σ_{i=1..k} i/2^i (Table 1, "query false"); it approaches
 * 1/(1 − r) as k grows (2 at r = 1/2).
 */
export function accessesFalse(r: number, k: number): number {
  if (r <= 0) return 1;
  let s = 0;
  for (let i = 1; i <= k; i++) s += i * r ** (i - 1) * (1 - r);
  return s / (1 - r ** k);
}

/** Half-fill load of a block: keys per block when each of its parts of B/b bits is half set (APBF §6). */
export function halfFillLoad(B: number, b: number): number {
  return Math.LN2 / -Math.log1p(-b / B);
}

/**
 * The n a config is sized for when the config does not say: the n at which a probe meets a fill
 * of 1/2 — basic n = ⌊m·ln 2/k⌋ (the manual's k* relation solved for n), partitioned
 * n = ⌊(m/k)·ln 2⌋ (§4.1), blocked n = ⌊(m/B)·λ⌋ with λ the half-fill load.
 */
export function halfFillItems(p: BloomParams): number {
  switch (p.filter) {
    case 'basic':
      return Math.floor((p.bits * Math.LN2) / p.k);
    case 'partitioned':
      return Math.floor((p.bits / p.k) * Math.LN2);
    case 'blocked':
      return Math.floor((p.bits / p.blockBits) * halfFillLoad(p.blockBits, p.k));
  }
}

/** The b (a power of two below B) with the lowest exact blocked fp for m, B, n. */
export function optimalBitsPerBlock(m: number, B: number, n: number): number {
  let best = 1;
  for (let b = 2; b < B; b *= 2) if (fpBlocked(m, B, b, n) < fpBlocked(m, B, best, n)) best = b;
  return best;
}
