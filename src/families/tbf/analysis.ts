/**
 * Inferential BTBF (Dautrich & Ravishankar §2, §4): sliding-window posteriors from the latent
 * state (λ_x, c_x, r_x, b) of a query, minimum-expected-penalty decisions (§2.6), the most likely
 * and expected insertion ages (§2.3.3), and the Simple Buffer baseline (§6.2, Eq. 36).
 * All results are for a continuous stream (n → ∞) and a time-invariant item probability p_x.
 */

/** D(j): expected number of distinct items among j insertions (§2.5). */
export type DistinctFn = (j: number) => number;

/** Eq. 16: uniform items over a universe of |U|. */
export function distinctUniform(universe: number): DistinctFn {
  return (j) => universe * -Math.expm1(j * Math.log1p(-1 / universe));
}

export function harmonic(n: number): number {
  let h = 0;
  for (let i = n; i >= 1; i--) h += 1 / i;
  return h;
}

const EULER_GAMMA = 0.5772156649015329;

/** Eq. 17: Zipf-like power law p_x = 1/(x·H_|U|), valid for j well below |U|·H_|U|. */
export function distinctPowerLaw(universe: number): DistinctFn {
  const H = harmonic(universe);
  return (j) => (j <= 0 ? 0 : Math.min(j, (j / H) * (1 - EULER_GAMMA + Math.log((universe * H) / j))));
}

/** Eq. 18: piecewise logarithmic interpolation between measured points (j ascending, j > 0). */
export function distinctSampled(points: readonly (readonly [number, number])[]): DistinctFn {
  if (points.length < 2) throw new RangeError('need at least two sampled D(j) points');
  return (j) => {
    if (j <= 0) return 0;
    let i = 0;
    while (i < points.length - 2 && j > points[i + 1]![0]) i++;
    const [j1, d1] = points[i]!;
    const [j3, d3] = points[i + 1]!;
    return Math.exp(Math.log(d1) + (Math.log(d3 / d1) * Math.log(j / j1)) / Math.log(j3 / j1));
  };
}

export interface BtbfShape {
  k: number;
  /** Timers per bank (partitioned) or in all (shared). */
  timersPerHash: number;
  layout: 'partitioned' | 'shared';
  window: number;
  blockSize: number;
}

/** Probability that a given timer is not touched by j insertions (with D(j) distinct items). */
export function untouched(s: BtbfShape, D: DistinctFn, j: number): number {
  const perInsert = s.layout === 'partitioned' ? 1 - 1 / s.timersPerHash : (1 - 1 / s.timersPerHash) ** s.k;
  return perInsert ** D(j);
}

/** Eq. 21: F(r, c, j) — a given c of r timers untouched during j insertions, the other r − c touched. */
export function F(s: BtbfShape, D: DistinctFn, r: number, c: number, j: number): number {
  const q = untouched(s, D, j);
  return q ** c * (1 - q) ** (r - c);
}

/** ⌈(w − b)/B⌉: the largest λ that is not expired. */
export function lambdaMax(s: BtbfShape, b: number): number {
  return Math.ceil((s.window - b) / s.blockSize);
}

export interface Latent {
  /** λ_x (Infinity when expired). */
  lambda: number;
  c: number;
  r: number;
  b: number;
}

/** Theorems 2–5: P(I_x < w | R_x). */
export function posterior(s: BtbfShape, D: DistinctFn, px: number, x: Latent): number {
  const { lambda, c, r, b } = x;
  const B = s.blockSize;
  const w = s.window;
  const q = 1 - px;
  const top = lambdaMax(s, b);
  if (lambda > top) return 0; // Theorem 2
  if (lambda === 0) {
    // Theorem 3
    if (b === 0) throw new RangeError('λ_x = 0 needs b > 0 (an insertion since the last increment)');
    return 1 - q ** w / (-Math.expm1(b * Math.log1p(-px)) / F(s, D, r, 0, b) + q ** b);
  }
  const FcB = F(s, D, c, 0, B);
  const e = w - (lambda - 1) * B - b;
  if (lambda < top) return 1 - q ** e / (-Math.expm1(B * Math.log1p(-px)) / FcB + q ** B); // Theorem 4
  return -Math.expm1(e * Math.log1p(-px)) / (1 - q ** B * (1 - FcB)); // Theorem 5
}

/**
 * P(R_x | I_x = i) (Lemmas 4.1, 4.2; 0 when expired and i < w), up to the approximation G ≈
 * F(c,0,B)·F(r,c,(λ−1)B+b). Used for direct numerical sums and for insertion-age estimates.
 */
export function likelihood(s: BtbfShape, D: DistinctFn, x: Latent, i: number): number {
  const { lambda, c, r, b } = x;
  const B = s.blockSize;
  if (lambda === Infinity) return i < s.window ? 0 : 1; // only the ratio matters for i >= w
  if (lambda === 0) return i < b ? 1 : F(s, D, r, 0, b);
  const lo = (lambda - 1) * B + b;
  if (i < lo) return 0;
  const Fr = F(s, D, r, c, lo);
  if (i < lambda * B + b) return Fr;
  return F(s, D, c, 0, B) * Fr;
}

/** The answer with the smaller expected penalty (§2.6): Pos iff $FP·(1−P) ≤ $FN·P. */
export function decide(p: number, costFP: number, costFN: number): boolean {
  return costFP * (1 - p) <= costFN * p;
}

/** Σ_{i=a}^{b−1} x^i and Σ_{i=a}^{b−1} i·x^i for 0 < x < 1 (b may be Infinity). */
function geo(x: number, a: number, b: number): [number, number] {
  const S0 = (n: number): number => (n === Infinity ? 0 : x ** n) / (1 - x);
  const S1 = (n: number): number => (n === Infinity ? 0 : (x ** n * (n * (1 - x) + x)) / (1 - x) ** 2);
  return [S0(a) - S0(b), S1(a) - S1(b)];
}

/**
 * §2.3.3: the most likely number of insertions since x was last inserted, argmax_i P(i|R_x), and
 * its expectation E[I_x | R_x] (Eq. 8). P(i)·P(R_x|i) is piecewise geometric, so both are exact.
 */
export function insertionAge(
  s: BtbfShape,
  D: DistinctFn,
  px: number,
  x: Latent,
): { mostLikely: number; expected: number } {
  const q = 1 - px;
  const B = s.blockSize;
  let pieces: [number, number, number][]; // [from, to (exclusive), likelihood]
  if (x.lambda === Infinity) pieces = [[s.window, Infinity, 1]];
  else if (x.lambda === 0)
    pieces = [
      [0, x.b, 1],
      [x.b, Infinity, F(s, D, x.r, 0, x.b)],
    ];
  else {
    const lo = (x.lambda - 1) * B + x.b;
    const hi = x.lambda * B + x.b;
    pieces = [
      [lo, hi, likelihood(s, D, x, lo)],
      [hi, Infinity, likelihood(s, D, x, hi)],
    ];
  }
  let z = 0;
  let m1 = 0;
  let best = { i: 0, v: -1 };
  for (const [a, b, l] of pieces) {
    if (l === 0 || a >= b) continue;
    const [s0, s1] = geo(q, a, b);
    z += l * s0;
    m1 += l * s1;
    const v = l * q ** a; // each piece is largest at its start
    if (v > best.v) best = { i: a, v };
  }
  return { mostLikely: best.i, expected: m1 / z };
}

/** §6.2, Eq. 36: the Simple Buffer's posterior (the last δ items as bph-bit hashes). */
export function simpleBufferPosterior(
  px: number,
  w: number,
  delta: number,
  bph: number,
  D: DistinctFn,
  found: boolean,
): number {
  const q = 1 - px;
  if (!found) return 1 - q ** (w - delta);
  const fp = 1 - (1 - 0.5 ** bph) ** D(delta);
  return 1 - q ** w / (-Math.expm1(delta * Math.log1p(-px)) / fp + q ** delta);
}

/**
 * Standard (T)BTF false-positive rate for a never-inserted key on a stream of distinct keys:
 * every timer of R_x must hold a live timestamp. At block counter b a timestamp is live when set
 * within the last L(b) = ⌈(w − b)/B⌉·B + b insertions; b is uniform over 0..B−1 in steady state.
 */
export function standardFalsePositiveRate(s: BtbfShape, D: DistinctFn = (j) => j): number {
  let sum = 0;
  for (let b = 0; b < s.blockSize; b++) {
    const live = lambdaMax(s, b) * s.blockSize + b;
    sum += (1 - untouched(s, D, live)) ** s.k;
  }
  return sum / s.blockSize;
}

/** Bits of timers per item of the window: m · bpt / w. */
export function tbfBitsPerItem(timers: number, timerBits: number, window: number): number {
  return (timers * timerBits) / window;
}
