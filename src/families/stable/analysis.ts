/**
 * Analytics of the Stable Bloom filter: Deng & Rafiei's formulas (SIGMOD 2006: the stable point,
 * the false-positive rate there, and the P that reaches a target false-positive rate)
 * and the same analysis redone for the word-local variant the hardware builds (./model.ts).
 *
 * Deng & Rafiei's cell model: in each insert a given cell is set to Max with probability k/m and
 * decremented (and not set) with probability (P/m)(1 − k/m); its value is Max minus the
 * decrements since it was last set, so once the filter has run long enough it is 0 iff the Max
 * most recent of these events were all decrements:
 *     P0 = (1 / (1 + 1/(P (1/k − 1/m))))^Max                        (stable fraction of zeros)
 *     FPS = (1 − P0)^k                                              (false positives there)
 *     P* = 1 / ((1/(1 − FPS^{1/k})^{1/Max} − 1) (1/k − 1/m))        (P for a target FPS)
 * The libBf manual prints FPS without its exponents, 1 − 1/(1 + 1/(P(1/k − 1/m))); that is
 * neither P0 nor FPS unless Max = k = 1 (see `libbfManualFps`: kept only to show the
 * difference).
 *
 * The variant (word-local decrements, partitioned). In bank i (N = `cells` cells, C cells per
 * word, P_i decrements) a given cell, per insert of a fresh key:
 *   - is set with probability s = 1/N (the key's hash picks it),
 *   - is decremented and not set with probability q_i = (1/depth)(P_i/C)(1 − 1/C)
 *     = (P_i/N)(1 − 1/C): the key's word is the cell's word (1/depth), the cyclic run of P_i
 *     cells from the uniform r_i covers it (P_i/C) and the key's offset is another cell
 *     (1 − 1/C, independent of r_i).
 * The cell is then the same Markov chain as Deng & Rafiei's with s/q_i = 1/(P_i(1 − 1/C)), so
 *     P0_i = (1 / (1 + 1/(P_i (1 − 1/C))))^Max,      FPS = Π_i (1 − P0_i).
 * With P = k·P_i this is Deng & Rafiei's formula with m replaced by k·C (the cells of the k
 * words an insert touches): P_i(1 − 1/C) = P(1/k − 1/(kC)). The curves before the stable point
 * (`zeroCurve`) and the false-negative curve by age (`foundCurve`) come from the same chain,
 * stepped exactly: zeros from an empty filter, and a key's own cell starting at Max.
 */

/** Deng & Rafiei's stable point: the limit fraction of zero cells. */
export function drStablePoint(P: number, k: number, m: number, max: number): number {
  if (P === 0) return 0;
  return (1 / (1 + 1 / (P * (1 / k - 1 / m)))) ** max;
}

/** Deng & Rafiei's false-positive rate at the stable point, (1 − P0)^k. */
export function drFalsePositive(P: number, k: number, m: number, max: number): number {
  return (1 - drStablePoint(P, k, m, max)) ** k;
}

/** Deng & Rafiei's P for a target false-positive rate at the stable point (a real number). */
export function drOptimalP(fp: number, k: number, m: number, max: number): number {
  return 1 / ((1 / (1 - fp ** (1 / k)) ** (1 / max) - 1) * (1 / k - 1 / m));
}

/** The libBf manual's printed formula (exponents missing): for comparison only. */
export function libbfManualFps(P: number, k: number, m: number): number {
  return 1 - 1 / (1 + 1 / (P * (1 / k - 1 / m)));
}

/** What the variant's analysis needs from a config. */
export interface StableShape {
  k: number;
  d: number;
  cells: number;
  cellsPerWord: number;
  P: number;
}

/** Per-insert probabilities of one cell of bank i: set (s) and decremented-not-set (q). */
export interface CellRates {
  s: number;
  q: number;
}

function perBank(P: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(P / k) + (i < P % k ? 1 : 0));
}

export function bankRates(c: StableShape): CellRates[] {
  const C = c.cellsPerWord;
  return perBank(c.P, c.k).map((Pi) => ({ s: 1 / c.cells, q: (Pi / c.cells) * (1 - 1 / C) }));
}

/** The variant's stable point of bank i: (q/(q+s))^Max. */
export function bankStablePoint(r: CellRates, max: number): number {
  return r.q === 0 ? 0 : (r.q / (r.q + r.s)) ** max;
}

/** The variant's stable fraction of zeros (mean over banks) and false-positive rate. */
export function stablePoint(c: StableShape): { zeros: number; fp: number; perBank: number[] } {
  const max = 2 ** c.d - 1;
  const z = bankRates(c).map((r) => bankStablePoint(r, max));
  return { zeros: z.reduce((a, b) => a + b, 0) / z.length, fp: z.reduce((a, zi) => a * (1 - zi), 1), perBank: z };
}

/** The variant's formula in Deng & Rafiei's form: their P0 and FPS with m := k·C (P/k per bank). */
export function variantAsDengRafiei(c: StableShape): { zeros: number; fp: number } {
  const max = 2 ** c.d - 1;
  return {
    zeros: drStablePoint(c.P, c.k, c.k * c.cellsPerWord, max),
    fp: drFalsePositive(c.P, c.k, c.k * c.cellsPerWord, max),
  };
}

/** One step of a cell's value distribution (index = value 0..Max). */
function step(dist: Float64Array, r: CellRates, tmp: Float64Array): void {
  const max = dist.length - 1;
  const stay = 1 - r.s - r.q;
  for (let v = 0; v <= max; v++) {
    let p = stay * dist[v]!;
    if (v < max) p += r.q * dist[v + 1]!;
    if (v === 0) p += r.q * dist[0]!;
    if (v === max) p += r.s;
    tmp[v] = p;
  }
  dist.set(tmp);
}

/**
 * The expected fraction of zeros of each bank and the false-positive rate after n inserts of
 * distinct keys into an empty filter, at each n of `at` (ascending).
 */
export function zeroCurve(c: StableShape, at: readonly number[]): { n: number; zeros: number; fp: number }[] {
  const max = 2 ** c.d - 1;
  const rates = bankRates(c);
  const dists = rates.map(() => {
    const d = new Float64Array(max + 1);
    d[0] = 1;
    return d;
  });
  const tmp = new Float64Array(max + 1);
  const out: { n: number; zeros: number; fp: number }[] = [];
  let n = 0;
  for (const target of at) {
    for (; n < target; n++) rates.forEach((r, i) => step(dists[i]!, r, tmp));
    const z = dists.map((d) => d[0]!);
    out.push({ n, zeros: z.reduce((a, b) => a + b, 0) / z.length, fp: z.reduce((a, zi) => a * (1 - zi), 1) });
  }
  return out;
}

/**
 * The probability that a key inserted j inserts ago (j later inserts of other distinct keys) is
 * still reported: Π_i P(its cell of bank i is non-zero), each cell starting at Max. At each j of
 * `at` (ascending). For large j it falls to the stable false-positive rate, not to 0.
 */
export function foundCurve(c: StableShape, at: readonly number[]): { j: number; found: number }[] {
  const max = 2 ** c.d - 1;
  const rates = bankRates(c);
  const dists = rates.map(() => {
    const d = new Float64Array(max + 1);
    d[max] = 1;
    return d;
  });
  const tmp = new Float64Array(max + 1);
  const out: { j: number; found: number }[] = [];
  let j = 0;
  for (const target of at) {
    for (; j < target; j++) rates.forEach((r, i) => step(dists[i]!, r, tmp));
    out.push({ j, found: dists.reduce((a, d) => a * (1 - d[0]!), 1) });
  }
  return out;
}

/**
 * The largest age j at which a key is still reported with probability >= `prob` (0 when even
 * j = 0 fails; null when P = 0 (it never forgets) or when it still holds after the step limit).
 */
export function ageFound(c: StableShape, prob: number): number | null {
  if (c.P === 0) return null;
  const max = 2 ** c.d - 1;
  // At most about 5·10^7 cell-value updates (a second or so).
  const limit = Math.floor(5e7 / (c.k * (max + 1)));
  const rates = bankRates(c);
  const dists = rates.map(() => {
    const d = new Float64Array(max + 1);
    d[max] = 1;
    return d;
  });
  const tmp = new Float64Array(max + 1);
  // Stepped one insert at a time: the number of steps is the answer.
  for (let j = 0; j <= limit; j++) {
    const found = dists.reduce((a, d) => a * (1 - d[0]!), 1);
    if (found < prob) return j - 1 < 0 ? 0 : j - 1;
    rates.forEach((r, i) => step(dists[i]!, r, tmp));
  }
  return null;
}

/** The smallest integer P whose stable false-positive rate (variant) is at most `fp`, or null. */
export function smallestP(c: Omit<StableShape, 'P'>, fp: number): number | null {
  const maxP = c.k * c.cellsPerWord;
  let lo = 1;
  let hi = maxP;
  if (stablePoint({ ...c, P: hi }).fp > fp) return null;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stablePoint({ ...c, P: mid }).fp <= fp) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** (Max+1)×(Max+1) transition matrix of one cell per insert (row: value before, column: after). */
function transition(r: CellRates, max: number): Float64Array[] {
  const n = max + 1;
  const T = Array.from({ length: n }, () => new Float64Array(n));
  for (let v = 0; v <= max; v++) {
    T[v]![max]! += r.s;
    T[v]![Math.max(0, v - 1)]! += r.q;
    T[v]![v]! += 1 - r.s - r.q;
  }
  return T;
}

function matMul(a: Float64Array[], b: Float64Array[]): Float64Array[] {
  const n = a.length;
  const c = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++)
    for (let l = 0; l < n; l++) {
      const x = a[i]![l]!;
      if (x === 0) continue;
      for (let j = 0; j < n; j++) c[i]![j]! += x * b[l]![j]!;
    }
  return c;
}

/**
 * The probability that a key inserted j inserts ago is still reported (foundCurve at one age),
 * by squaring the cell's transition matrix: O(Max³ log j) per distinct P_i, for any j.
 */
export function foundAtAge(c: StableShape, j: number): number {
  const max = 2 ** c.d - 1;
  const byRate = new Map<number, { r: CellRates; n: number }>();
  for (const r of bankRates(c)) {
    const e = byRate.get(r.q);
    if (e) e.n++;
    else byRate.set(r.q, { r, n: 1 });
  }
  let found = 1;
  for (const { r, n } of byRate.values()) {
    let result: Float64Array[] | null = null;
    let base = transition(r, max);
    for (let e = j; e > 0; e = Math.floor(e / 2)) {
      if (e & 1) result = result ? matMul(result, base) : base;
      if (e > 1) base = matMul(base, base);
    }
    const zero = result ? result[max]![0]! : 0;
    found *= (1 - zero) ** n;
  }
  return found;
}
