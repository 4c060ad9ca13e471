/**
 * Analytics of the bitwise Bloom filter for n items of given multiplicities (a "profile": how many
 * distinct items were added f times, for each f), added in random order.
 *
 * False positives at level 0 — the libBf manual's basic Bloom filter formula, and its partitioned
 * form (the hardware's: hash j of a level indexes bank j of m/k cells):
 *   basic        (1 − (1 − 1/m_0)^{k_0·n})^{k_0}
 *   partitioned  (1 − (1 − k_0/m_0)^{n})^{k_0}
 *
 * Everything else comes from one derivation, the "digit cell model" (the manual gives none):
 *  1. Digits. A lone item added f times holds the digits of f in the mixed radix (2^{w_0},
 *     2^{w_1}, …): it makes a_i = ⌊f/2^{W_i}⌋ adds into level i (W_i = Σ_{j<i} w_j; its carries),
 *     and holds d_i = a_i mod 2^{w_i} there at the end (all at the maximum once f ≥ 2^{Σw}).
 *     It carries out of level i < l−1 when a_i ≥ 2^{w_i}; its last carry out is its add number
 *     a_i − d_i into the level, after which d_i more follow. A lone item reaches level i iff
 *     f ≥ 2^{W_i}.
 *  2. Cells. A cell of level i (bank of b_i = m_i/k_i cells) receives each other item with
 *     probability 1/b_i, independently (partitioned hashing); counts of items per cell are taken as
 *     Poisson (the binomial's limit). A cell without a carrying-out item holds the sum of its items'
 *     a_i: a compound Poisson sum S = Σ_v v·Poisson(λ_v), whose pmf Panjer's recursion gives
 *     exactly: p(0) = e^{−Σλ}, p(s) = (1/s) Σ_v v·λ_v·p(s − v).
 *     A cell that holds a carrying-out item y (probability 1 − e^{−λ_C}, λ_C = carriers/b_i; at
 *     most one is assumed) was zeroed at y's last carry — the manual's "remove it from V_i" takes
 *     every item's share of the cell with it. After it the cell holds y's d_y, and of each other
 *     item z the adds made after that moment: in a random order, a fraction ρ_y of the stream
 *     follows y's last carry, taken at its mean (d_y + 1)/(a_y + 1) (the order statistic of y's
 *     adds), so z keeps min(d_z, Binomial(a_z, ρ_y)) — S thinned, again by Panjer.
 *     Cells saturate at 2^{w_i} − 1.
 *  3. Minimum selection. Item x's k_i cells lie in different banks, hence independent:
 *     P(c_i(x) ≥ t) = P(cell ≥ t)^{k_i}, where the cell also holds x's own d_i (non-zeroed cell)
 *     or min(d_i(x), Binomial(a_i(x), ρ_y)) (zeroed cell).
 *  4. The count Ĉ_x = Σ_i 2^{W_i} c_i(x), levels independent:
 *       expected count error   E[Ĉ_x] − f = Σ_i 2^{W_i} Σ_{t≥1} P(c_i ≥ t) − f
 *       false negative         P(Ĉ_x = 0) = Π_i P(c_i = 0)
 *       reach of level i       P(Ĉ_x ≥ 2^{W_i}) = 1 − Π_{j≥i} P(c_j = 0) · P(Σ_{j<i} 2^{W_j} c_j < 2^{W_i})
 *       (x "reaches" level i when its count reaches level i's weight: a non-zero counter at level
 *       i or above — what a query sees, so the experiments measure it on the RTL too)
 *       false positive         1 − Π_i (1 − P(cell ≥ 1)^{k_i}) for a key never added (f = 0).
 *  Left out: carries that collisions cause ("ghost" carries of light items whose counters others
 *  raised to the maximum), two carrying items in one cell, and the spread of ρ_y around its mean.
 * Distributions are truncated at PMF_CAP values (beyond, the tail is lumped at the cap).
 */
import type { LevelLayout } from './types.js';

/** Highest counter value a distribution keeps (wider counters are lumped there). */
export const PMF_CAP = 1 << 10;

/** A multiplicity profile: `items[f]` distinct items were added f times (f ≥ 1). */
export type Profile = ReadonlyMap<number, number>;

export function profileItems(p: Profile): number {
  let n = 0;
  for (const v of p.values()) n += v;
  return n;
}

/** n items each added f times. */
export function uniformProfile(n: number, f: number): Profile {
  return new Map([[f, n]]);
}

/** Adds a lone item added f times makes into each level: a_i = ⌊f/2^{W_i}⌋ (saturated: the maximum). */
export function levelAdds(levels: readonly LevelLayout[], f: number): number[] {
  const total = levels.reduce((s, L) => s + L.width, 0);
  if (f >= 2 ** total) return levels.map((L) => L.max);
  return levels.map((L) => Math.floor(f / 2 ** L.offset));
}

/** The digits of a lone item added f times: d_i = a_i mod 2^{w_i} (all at the maximum once saturated). */
export function loneDigits(levels: readonly LevelLayout[], f: number): number[] {
  return levelAdds(levels, f).map((a, i) => a % 2 ** levels[i]!.width);
}

/** The basic Bloom filter's fp (the manual's formula) for n items in m cells with k hashes. */
export function basicFp(m: number, k: number, n: number): number {
  return (-Math.expm1(k * n * Math.log1p(-1 / m))) ** k;
}

/** The partitioned form: k banks of m/k cells, one hash each. */
export function partitionedFp(m: number, k: number, n: number): number {
  return (-Math.expm1(n * Math.log1p(-k / m))) ** k;
}

/**
 * The pmf of Σ_v v·Poisson(rates[v]) on 0..cap (P(≥ cap) lumped at cap), by Panjer's recursion for
 * the compound Poisson distribution.
 */
export function compoundPoissonPmf(rates: ReadonlyMap<number, number>, cap: number): Float64Array {
  const p = new Float64Array(cap + 1);
  let lambda = 0;
  const jumps: [number, number][] = [];
  for (const [v, r] of rates)
    if (r > 0 && v > 0) {
      lambda += r;
      if (v <= cap) jumps.push([v, v * r]);
    }
  p[0] = Math.exp(-lambda);
  let acc = p[0];
  for (let s = 1; s < cap; s++) {
    let x = 0;
    for (const [v, vr] of jumps) if (v <= s) x += vr * p[s - v]!;
    p[s] = x / s;
    acc += p[s]!;
  }
  if (cap > 0) p[cap] = Math.max(0, 1 - acc);
  return p;
}

/** The pmf of a + B (B given by its pmf) on 0..cap, the tail lumped at cap. */
function shift(pmf: Float64Array, a: number, cap: number): Float64Array {
  const out = new Float64Array(cap + 1);
  pmf.forEach((p, s) => (out[Math.min(cap, s + a)]! += p));
  return out;
}

/** P(X ≥ t), t = 0..cap, from a pmf on 0..cap. */
function tailOf(pmf: Float64Array): Float64Array {
  const t = new Float64Array(pmf.length);
  let s = 0;
  for (let i = pmf.length - 1; i >= 0; i--) t[i] = s += pmf[i]!;
  return t;
}

/** The pmf of min(d, Binomial(a, ρ)) on 0..d. */
function keptPmf(a: number, d: number, rho: number): Float64Array {
  const out = new Float64Array(d + 1);
  if (rho <= 0) {
    out[0] = 1;
    return out;
  }
  if (rho >= 1) {
    out[Math.min(a, d)] = 1;
    return out;
  }
  // Binomial pmf by the ratio recursion, in logs for large a.
  let logp = a * Math.log1p(-rho);
  const r = Math.log(rho) - Math.log1p(-rho);
  let below = 0;
  for (let j = 0; j < d && j <= a; j++) {
    const p = Math.exp(logp);
    out[j] = p;
    below += p;
    logp += Math.log(a - j) - Math.log(j + 1) + r;
  }
  out[d] = Math.max(0, 1 - below);
  return out;
}

interface Item {
  /** Adds into the level, digit at the end, how many such items. */
  a: number;
  d: number;
  count: number;
}

/** The items of a level (less one item of multiplicity `self`, the item looked at). */
function levelItems(levels: readonly LevelLayout[], p: Profile, i: number, self: number): Item[] {
  const out: Item[] = [];
  for (const [f, count] of p) {
    const n = count - (f === self ? 1 : 0);
    const a = levelAdds(levels, f)[i]!;
    if (n > 0 && a > 0) out.push({ a, d: a % 2 ** levels[i]!.width, count: n });
  }
  return out;
}

/** What one of the k_i cells of level i holds besides the item looked at (step 2 of the header). */
interface CellModel {
  /** Largest value kept. */
  cap: number;
  /** pmf of a cell that no carrying-out item shares: the other items' adds (0..cap). */
  quiet: Float64Array;
  /** Probability that a carrying-out item shares the cell (it was zeroed at that item's last carry). */
  pz: number;
  /** Per carrying-out item y (weight: its share of them): ρ_y, and the pmf of what the cell holds from the others. */
  zeroed: { weight: number; rho: number; held: Float64Array }[];
}

function cellModel(levels: readonly LevelLayout[], p: Profile, f: number, i: number): CellModel {
  const L = levels[i]!;
  const cap = Math.min(L.max, PMF_CAP);
  const b = L.cells / L.k;
  const top = i === levels.length - 1;
  const items = levelItems(levels, p, i, f);
  const carries = (it: Item): boolean => !top && it.a > L.max;
  const plain = new Map<number, number>();
  let carriers = 0;
  for (const it of items) {
    if (carries(it)) carriers += it.count;
    else plain.set(it.a, (plain.get(it.a) ?? 0) + it.count / b);
  }
  const quiet = compoundPoissonPmf(plain, cap);
  const zeroed = items.filter(carries).map((y) => {
    const rho = (y.d + 1) / (y.a + 1);
    const thinned = new Map<number, number>();
    for (const z of items) {
      if (carries(z)) continue;
      keptPmf(z.a, z.d, rho).forEach((q, v) => {
        if (v > 0) thinned.set(v, (thinned.get(v) ?? 0) + (q * z.count) / b);
      });
    }
    return { weight: y.count / carriers, rho, held: shift(compoundPoissonPmf(thinned, cap), y.d, cap) };
  });
  return { cap, quiet, pz: carriers === 0 ? 0 : -Math.expm1(-carriers / b), zeroed };
}

/** P(cell ≥ t), t = 0..cap, for a cell of level i that a key never added reads (f = 0). */
export function cellTail(levels: readonly LevelLayout[], p: Profile, i: number): Float64Array {
  const c = cellModel(levels, p, 0, i);
  const mix = c.quiet.map((q) => (1 - c.pz) * q);
  for (const z of c.zeroed) z.held.forEach((q, v) => (mix[v]! += c.pz * z.weight * q));
  return tailOf(mix);
}

/** The pmf of Binomial(a, q) mod 2^w on 0..2^w − 1. */
function binomialMod(a: number, q: number, w: number): Float64Array {
  const R = 2 ** Math.min(w, 30);
  const out = new Float64Array(Math.min(R, a + 1));
  if (q <= 0 || a === 0) {
    out[0] = 1;
    return out;
  }
  if (q >= 1) {
    out[a % R] = 1;
    return out;
  }
  let logp = a * Math.log1p(-q);
  const r = Math.log(q) - Math.log1p(-q);
  for (let j = 0; j <= a; j++) {
    out[j % R]! += Math.exp(logp);
    logp += Math.log(a - j) - Math.log(j + 1) + r;
  }
  return out;
}

/**
 * The pmf of Δ_i, the change at level i of the item's minimum counter relative to its own digit
 * (step 3 of the header), on −cap..cap (index v + cap).
 */
export function deltaPmf(levels: readonly LevelLayout[], p: Profile, f: number, i: number): Float64Array {
  const L = levels[i]!;
  const c = cellModel(levels, p, f, i);
  const M = c.cap;
  const a = levelAdds(levels, f)[i]!;
  const d = loneDigits(levels, f)[i]!;
  const cell = new Float64Array(2 * M + 1);
  // A quiet cell: the others' adds on top of the digit, up to the counter's maximum.
  c.quiet.forEach((q, v) => (cell[M + Math.min(v, Math.max(0, L.max - d))]! += (1 - c.pz) * q));
  for (const z of c.zeroed) {
    // Zeroed at y's last carry: the item loses its digit of that moment, (adds before it) mod 2^w.
    const lost = binomialMod(a, 1 - z.rho, L.width);
    lost.forEach((ql, l) => {
      if (ql === 0) return;
      z.held.forEach((qg, g) => (cell[M + Math.max(-M, Math.min(M, g - l))]! += c.pz * z.weight * ql * qg));
    });
  }
  // The minimum of k_i independent cells: P(Δ ≥ t) = P(δ ≥ t)^k.
  const tail = tailOf(cell).map((q) => q ** L.k);
  return tail.map((q, v) => q - (v + 1 < tail.length ? tail[v + 1]! : 0));
}

export interface ItemFigures {
  /** E[Ĉ] − f, and the variance of Ĉ. */
  expectedError: number;
  variance: number;
  /** P(Ĉ = 0). */
  falseNegative: number;
  /** P(Ĉ ≥ 2^{W_i}), i = 0..l−1 (i = 0: count > 0). */
  reach: number[];
}

/** Probabilities below this are dropped from the distribution of the count (it stays small). */
const PRUNE = 1e-13;

/** Step 4 of the header for an item of multiplicity f among the profile's items. */
export function itemFigures(levels: readonly LevelLayout[], p: Profile, f: number): ItemFigures {
  const maxCount = 2 ** levels.reduce((s, L) => s + L.width, 0) - 1;
  // The count Ĉ = f + Σ_i 2^{W_i} Δ_i (clamped to 0..maxCount), as a sparse distribution.
  let dist = new Map<number, number>([[Math.min(f, maxCount), 1]]);
  levels.forEach((L, i) => {
    const pmf = deltaPmf(levels, p, f, i);
    const M = (pmf.length - 1) / 2;
    const w = 2 ** L.offset;
    const next = new Map<number, number>();
    for (const [x, px] of dist)
      pmf.forEach((q, v) => {
        const pr = px * q;
        if (pr < PRUNE) return;
        const y = Math.max(0, Math.min(maxCount, x + (v - M) * w));
        next.set(y, (next.get(y) ?? 0) + pr);
      });
    dist = next;
  });
  let mass = 0;
  let mean = 0;
  let square = 0;
  for (const [x, q] of dist) {
    mass += q;
    mean += x * q;
    square += x * x * q;
  }
  mean /= mass;
  const at = (pred: (x: number) => boolean): number => {
    let s = 0;
    for (const [x, q] of dist) if (pred(x)) s += q;
    return s / mass;
  };
  return {
    expectedError: mean - f,
    variance: Math.max(0, square / mass - mean * mean),
    falseNegative: at((x) => x === 0),
    reach: levels.map((L) => at((x) => x >= 2 ** L.offset)),
  };
}

export interface ProfileFigures {
  /** Means over the profile's distinct items of E[Ĉ] − f and of P(Ĉ = 0). */
  expectedError: number;
  falseNegative: number;
  /** Standard deviation of the mean of Ĉ − f over the items (items independent). */
  meanErrorSd: number;
}

export function profileFigures(levels: readonly LevelLayout[], p: Profile): ProfileFigures {
  let e = 0;
  let fn = 0;
  let v = 0;
  for (const [f, count] of p) {
    const r = itemFigures(levels, p, f);
    e += count * r.expectedError;
    fn += count * r.falseNegative;
    v += count * r.variance;
  }
  const n = profileItems(p);
  return { expectedError: e / n, falseNegative: fn / n, meanErrorSd: Math.sqrt(v) / n };
}

export interface FpFigures {
  /** Level 0 alone, every item counted (the manual's formula and the partitioned form). */
  basic0: number;
  partitioned0: number;
  /** Per level P(every counter of a never-added key non-zero), and all levels together. */
  perLevel: number[];
  total: number;
}

export function falsePositives(levels: readonly LevelLayout[], p: Profile): FpFigures {
  const n = profileItems(p);
  const perLevel = levels.map((L, i) => (cellTail(levels, p, i)[1] ?? 0) ** L.k);
  return {
    basic0: basicFp(levels[0]!.cells, levels[0]!.k, n),
    partitioned0: partitionedFp(levels[0]!.cells, levels[0]!.k, n),
    perLevel,
    total: 1 - perLevel.reduce((s, x) => s * (1 - x), 1),
  };
}

/** The items a level can hold before its banks are half non-zero: (m_i/k_i)·ln 2. */
export function halfFullItems(L: LevelLayout): number {
  return (L.cells / L.k) * Math.LN2;
}
