/**
 * One trial of §6.1.3: a filter with one parameter choice runs the whole stream — the warm-up
 * inserts, then for each item a query and its insert — and the total penalty of its answers is
 * summed over the queries, for the standard answer and for the inferential one (§2.6: Pos iff
 * $FP·(1 − P) ≤ $FN·P with P = P(I_x < w | R_x)); the inferential posteriors are binned for the
 * posterior error (Eq. 35).
 *
 * The filters here are the families' models (src/families/tbf/model.ts, src/families/gbf/model.ts,
 * src/model/baselines.ts) written again over typed arrays for the 10^10 operations of a full run;
 * test/experiments/dautrich.test.ts drives each beside its model with the same hash values and
 * checks every answer and posterior. Items are hashed by a 32-bit mix keyed by the trial's seed
 * (any good hash serves: the paper's filters are not the hardware's H3).
 *
 * - BTBF (§3.2): the paper's single array of m timers (TbfModel's 'shared' layout): timer index
 *   h mod m, timestamps 0..TΩ and Tε, expiry at λ ≥ ⌈(w − b)/B⌉ + 1, after each insert the next
 *   ⌈m/(B(P+1))⌉ timers scanned. Posterior: Theorems 2–5 with F from Eq. 21 and the stream's D(j).
 * - GBF (§5): m one-bit cells, 2k hashes, k0 = k1 = k (§6.1.2); the paper's shared array, or the
 *   hardware's partitioned banks. Posterior: Eq. 34 in double-double (see gbf/analysis.ts), q_ε
 *   of the layout.
 * - Simple Buffer (§6.2): "x's bph-bit hash is among the last δ" (kept as the last position of each
 *   hash value, the same answer as the linear scan of SimpleBuffer); posterior Eq. 36.
 * - Prior only: P(I_x < w) = 1 − (1 − p_x)^w.
 */
import { untouched, type BtbfShape, type DistinctFn } from '../../families/tbf/analysis.js';
import { coefficients, qEpsDD } from '../../families/gbf/analysis.js';
import { bufferPosterior, priorPosterior } from '../../model/baselines.js';
import type { Stream } from './streams.js';

export const BINS = 20;

export interface TrialResult {
  /** Total penalty of the standard answers (NaN for prior only, which has none). */
  standard: number;
  inferential: number;
  /** Per posterior bin [ℓ/20, (ℓ+1)/20): queries, and those with I_x < w. */
  binCount: Float64Array;
  binYes: Float64Array;
}

export interface TrialInput {
  stream: Stream;
  w: number;
  /** I_x < w for each query (streams.ts truthOf). */
  inWindow: Uint8Array;
}

/** Eq. 35: mean |f_ℓ − M_ℓ| over queries. */
export function posteriorError(r: TrialResult): number {
  let n = 0;
  let s = 0;
  for (let l = 0; l < BINS; l++) {
    const c = r.binCount[l]!;
    if (c === 0) continue;
    n += c;
    s += Math.abs(r.binYes[l]! / c - (l + 0.5) / BINS) * c;
  }
  return n ? s / n : 0;
}

/** 32-bit hashes of every item: hash j of item x at H[x·stride + j]. */
export interface ItemHashes {
  H: Uint32Array;
  stride: number;
}

/** Hashes 0..stride−1 of items 0..distinct−1: Murmur3's finaliser on the item and a per-hash salt. */
export function itemHashes(distinct: number, seed: number, stride = 61): ItemHashes {
  const salts = new Int32Array(stride);
  for (let j = 0; j < stride; j++) salts[j] = fmix(Math.imul(seed + 1, 0x27d4eb2f) ^ Math.imul(j + 1, 0x165667b1));
  const H = new Uint32Array(distinct * stride);
  for (let x = 0; x < distinct; x++)
    for (let j = 0; j < stride; j++) H[x * stride + j] = fmix(Math.imul(x ^ salts[j]!, 0x9e3779b1) ^ j);
  return { H, stride };
}

function fmix(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** ⌊h·n/2^32⌋: an index in 0..n−1 from a 32-bit hash. */
export function reduce(h: number, n: number): number {
  return (h * n * 2.3283064365386963e-10) | 0; // 2^−32: exact scaling, then truncation
}

function newResult(): TrialResult {
  return { standard: 0, inferential: 0, binCount: new Float64Array(BINS), binYes: new Float64Array(BINS) };
}

function score(r: TrialResult, q: number, x: TrialInput, hit: boolean, p: number): void {
  const truth = x.inWindow[q] === 1;
  const fp = x.stream.costFP[q]!;
  const fn = x.stream.costFN[q]!;
  if (hit !== truth) r.standard += hit ? fp : fn;
  const pos = fp * (1 - p) <= fn * p;
  if (pos !== truth) r.inferential += pos ? fp : fn;
  const l = Math.min(BINS - 1, Math.floor(p * BINS));
  r.binCount[l]!++;
  if (truth) r.binYes[l]!++;
}

// ---- BTBF ----------------------------------------------------------------------------------------

export interface BtbfTrialParams {
  k: number;
  /** Timers in all (one shared array). */
  m: number;
  timerBits: number;
  blockSize: number;
  padding: number;
}

/**
 * §6.1.2's BTBF for a budget of bpi bits per item of the window: bpt = max(3, k), m = ⌊w·bpi/bpt⌋
 * timers, the smallest P that checks at most k timers per insertion (⌈m/(B(P+1))⌉ ≤ k), and the
 * smallest block size B whose TΩ = ⌈w/B⌉ + 1 + P leaves Tε = 2^bpt − 1 free. Null when m < 1.
 */
export function btbfForBudget(w: number, bpi: number, k: number): BtbfTrialParams | null {
  const timerBits = Math.max(3, k);
  const m = Math.floor((w * bpi) / timerBits);
  if (m < 1) return null;
  const maxOmega = 2 ** timerBits - 2;
  for (let B = 1; B <= w; B++) {
    const P = Math.max(0, Math.ceil(m / (k * B)) - 1);
    if (Math.ceil(w / B) + 1 + P <= maxOmega) return { k, m, timerBits, blockSize: B, padding: P };
  }
  return null;
}

/** The latent state of a BTBF query (as TbfModel.query returns it). */
export interface BtbfLatent {
  hit: boolean;
  lambda: number;
  c: number;
  r: number;
  b: number;
}

/** The BTBF of §3.2 over typed arrays (TbfModel, layout 'shared'). */
export class FastBtbf {
  readonly timers: Int32Array;
  readonly tOmega: number;
  readonly tEps: number;
  readonly markAge: number;
  readonly scanPerInsert: number;
  tPlus = 0;
  b = 0;
  scanPtr = 0;
  readonly idx: Int32Array;
  private readonly ages: Float64Array;

  constructor(
    readonly p: BtbfTrialParams,
    readonly w: number,
  ) {
    this.tOmega = Math.ceil(w / p.blockSize) + 1 + p.padding;
    this.tEps = 2 ** p.timerBits - 1;
    if (this.tOmega >= this.tEps) throw new RangeError('TΩ does not fit the timer bits');
    this.markAge = Math.ceil(w / p.blockSize) + 1;
    this.scanPerInsert = Math.ceil(p.m / (p.blockSize * (p.padding + 1)));
    this.timers = new Int32Array(p.m).fill(this.tEps);
    this.idx = new Int32Array(p.k);
    this.ages = new Float64Array(p.k);
  }

  age(t: number): number {
    if (t === this.tEps) return Infinity;
    const a = this.tPlus - t;
    return a < 0 ? a + this.tOmega + 1 : a;
  }

  /** λ_x, c_x, r_x of the last query (λ_x = Infinity: expired). */
  lambda = 0;
  c = 0;
  r = 0;

  /** Query the timers at `idx` (filled by the caller): the standard answer; λ_x, c_x, r_x kept. */
  query(): boolean {
    const { idx, ages, timers } = this;
    const k = this.p.k;
    const limit = Math.ceil((this.w - this.b) / this.p.blockSize) + 1;
    let lambda = -1;
    for (let j = 0; j < k; j++) {
      let a = this.age(timers[idx[j]!]!);
      if (a >= limit) a = Infinity;
      ages[j] = a;
      if (a > lambda) lambda = a;
    }
    // c_x: distinct timers at age λ (a repeated index counts once); r_x: distinct timers.
    let c = 0;
    for (let j = 0; j < k; j++) {
      if (ages[j] !== lambda) continue;
      let dup = false;
      for (let i = 0; i < j && !dup; i++) dup = idx[i] === idx[j];
      if (!dup) c++;
    }
    let r = k;
    if (lambda === 0) {
      r = 0;
      for (let j = 0; j < k; j++) {
        let dup = false;
        for (let i = 0; i < j && !dup; i++) dup = idx[i] === idx[j];
        if (!dup) r++;
      }
    }
    this.lambda = lambda;
    this.c = c;
    this.r = r;
    return lambda !== Infinity;
  }

  /** The last query's latent state. */
  latent(): BtbfLatent {
    return { hit: this.lambda !== Infinity, lambda: this.lambda, c: this.c, r: this.r, b: this.b };
  }

  /** Insert at `idx`, advance T+ and b, scan. */
  insert(): void {
    const { idx, timers } = this;
    for (let j = 0; j < this.p.k; j++) timers[idx[j]!] = this.tPlus;
    if (this.b === this.p.blockSize - 1) {
      this.tPlus = this.tPlus === this.tOmega ? 0 : this.tPlus + 1;
      this.b = 0;
    } else this.b++;
    const m = this.p.m;
    for (let s = 0; s < this.scanPerInsert; s++) {
      const t = timers[this.scanPtr]!;
      if (t !== this.tEps && this.age(t) >= this.markAge) timers[this.scanPtr] = this.tEps;
      this.scanPtr = this.scanPtr + 1 === m ? 0 : this.scanPtr + 1;
    }
  }
}

/** Theorems 2–5 for the BTBF of `f`, with F(c,0,B) and the untouched probabilities of Theorem 3 cached. */
export class BtbfPosterior {
  private readonly shape: BtbfShape;
  private readonly FcB: Float64Array;
  private readonly u: Float64Array;

  constructor(
    f: FastBtbf,
    private readonly D: DistinctFn,
  ) {
    this.shape = {
      k: f.p.k,
      timersPerHash: f.p.m,
      layout: 'shared',
      window: f.w,
      blockSize: f.p.blockSize,
    };
    const uB = untouched(this.shape, D, f.p.blockSize);
    this.FcB = new Float64Array(f.p.k + 1);
    for (let c = 0; c <= f.p.k; c++) this.FcB[c] = (1 - uB) ** c;
    this.u = new Float64Array(f.p.blockSize).fill(NaN);
  }

  /** P(I_x < w | R_x) for a query's latent state (λ, c, r, b), lq = ln(1 − p_x). */
  posterior(lambda: number, c: number, r: number, b: number, lq: number): number {
    const B = this.shape.blockSize;
    const w = this.shape.window;
    const top = Math.ceil((w - b) / B);
    if (lambda > top) return 0; // Theorem 2 (expired included)
    if (lambda === 0) {
      // Theorem 3
      let u = this.u[b]!;
      if (Number.isNaN(u)) u = this.u[b] = untouched(this.shape, this.D, b);
      const F = (1 - u) ** r;
      return 1 - Math.exp(w * lq) / (-Math.expm1(b * lq) / F + Math.exp(b * lq));
    }
    const FcB = this.FcB[c]!;
    const e = w - (lambda - 1) * B - b;
    if (lambda < top) return 1 - Math.exp(e * lq) / (-Math.expm1(B * lq) / FcB + Math.exp(B * lq)); // Theorem 4
    return -Math.expm1(e * lq) / (1 - Math.exp(B * lq) * (1 - FcB)); // Theorem 5
  }
}

export function btbfTrial(x: TrialInput, p: BtbfTrialParams, hashes: ItemHashes): TrialResult {
  const s = x.stream;
  const f = new FastBtbf(p, x.w);
  const post = new BtbfPosterior(f, s.D);
  const lq = Array.from(s.pxValues, (px) => Math.log1p(-px));
  const r = newResult();
  const k = p.k;
  const m = p.m;
  const idx = f.idx;
  const { H, stride } = hashes;
  for (let i = 0; i < s.items.length; i++) {
    const at = s.items[i]! * stride;
    for (let j = 0; j < k; j++) idx[j] = reduce(H[at + j]!, m);
    if (i >= s.warmup) {
      const q = i - s.warmup;
      const cls = s.pxClass[q]!;
      const hit = f.query();
      score(r, q, x, hit, post.posterior(f.lambda, f.c, f.r, f.b, lq[cls]!));
    }
    f.insert();
  }
  return r;
}

// ---- GBF -----------------------------------------------------------------------------------------

export interface GbfTrialParams {
  k0: number;
  k1: number;
  m: number;
  layout: 'shared' | 'partitioned';
}

/**
 * The GBF of §5 over a bit array (GbfModel). `idx` and `reset` are filled by the caller; in the
 * shared layout a small table finds an item's repeated cells (R_{x,0} and R_{x,1} are sets).
 */
export class FastGbf {
  readonly bits: Int32Array;
  readonly K: number;
  readonly idx: Int32Array;
  /** 1 where the hash resets its cell. */
  readonly reset: Uint8Array;
  private readonly seenKey = new Int32Array(256);
  private readonly seenGen = new Int32Array(256);
  private gen = 0;

  constructor(readonly p: GbfTrialParams) {
    this.K = p.k0 + p.k1;
    this.bits = new Int32Array(Math.ceil(p.m / 32));
    this.idx = new Int32Array(this.K);
    this.reset = new Uint8Array(this.K);
    for (let j = 0; j < p.k0; j++) this.reset[j] = 1;
  }

  cell(i: number): number {
    return (this.bits[i >>> 5]! >>> (i & 31)) & 1;
  }

  /** First time `i` is seen in this op (shared layout). */
  private fresh(i: number): boolean {
    let at = Math.imul(i, 0x9e3779b1) >>> 24;
    for (;;) {
      if (this.seenGen[at] !== this.gen) {
        this.seenGen[at] = this.gen;
        this.seenKey[at] = i;
        return true;
      }
      if (this.seenKey[at] === i) return false;
      at = (at + 1) & 255;
    }
  }

  /** out = [c0, c1, r0, r1] of the cells at `idx` (Definition 13). */
  observe(out: Int32Array): void {
    const { idx, reset, K } = this;
    let c0 = 0;
    let c1 = 0;
    let r0 = 0;
    let r1 = 0;
    if (this.p.layout === 'partitioned') {
      for (let j = 0; j < K; j++) {
        const v = this.cell(idx[j]!);
        if (reset[j]) {
          r0++;
          c0 += 1 - v;
        } else {
          r1++;
          c1 += v;
        }
      }
    } else {
      // Hashes 0..k0−1 reset: their cells first, so a set hash meeting one is left out of R_{x,1}.
      this.gen++;
      const k0 = this.p.k0;
      for (let j = 0; j < k0; j++)
        if (this.fresh(idx[j]!)) {
          r0++;
          c0 += 1 - this.cell(idx[j]!);
        }
      for (let j = k0; j < K; j++)
        if (this.fresh(idx[j]!)) {
          r1++;
          c1 += this.cell(idx[j]!);
        }
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = r0;
    out[3] = r1;
  }

  insert(): void {
    const { idx, reset, bits, K } = this;
    for (let j = 0; j < K; j++)
      if (!reset[j]) {
        const i = idx[j]!;
        bits[i >>> 5] = bits[i >>> 5]! | (1 << (i & 31));
      }
    for (let j = 0; j < K; j++)
      if (reset[j]) {
        const i = idx[j]!;
        bits[i >>> 5] = bits[i >>> 5]! & ~(1 << (i & 31));
      }
  }

  /** The cell values (0/1), for comparison with GbfModel. */
  cells(): Uint8Array {
    return Uint8Array.from({ length: this.p.m }, (_, i) => this.cell(i));
  }
}

/**
 * Eq. 34 (and its unapproximated form: gbf/analysis.ts `geometricPosterior`) for one p_x, q_ε and
 * w, summed in double-double without allocation: Σ_s a_s (1 − r_s^w)/(1 − r_s) / Σ_s a_s/(1 − r_s),
 * r_s = (1 − p_x)q_ε^s, a_s = C^s_{d,e}.
 */
export class Eq34 {
  /** q_ε^s and q_ε^{s·w} as hi/lo pairs, s = 0..K. */
  private readonly qs: Float64Array;
  private readonly qsw: Float64Array;
  private readonly coefs = new Map<number, Float64Array>();
  private readonly scratch: Float64Array;

  constructor(
    readonly K: number,
    qe: { hi: number; lo: number },
    readonly w: number,
  ) {
    const n = K + 1;
    this.qs = new Float64Array(2 * n);
    this.qsw = new Float64Array(2 * n);
    this.scratch = new Float64Array(4 * n);
    const qw = ddPow(qe.hi, qe.lo, w);
    let a = 1;
    let al = 0;
    let b = 1;
    let bl = 0;
    for (let s = 0; s < n; s++) {
      this.qs[2 * s] = a;
      this.qs[2 * s + 1] = al;
      this.qsw[2 * s] = b;
      this.qsw[2 * s + 1] = bl;
      ddMul(a, al, qe.hi, qe.lo);
      a = R0;
      al = R1;
      ddMul(b, bl, qw[0]!, qw[1]!);
      b = R0;
      bl = R1;
    }
  }

  /** C^s_{d,e}, s = 0..d+e, as hi/lo pairs (computed once per (d, e)). */
  private coef(d: number, e: number): Float64Array {
    const key = d * (this.K + 1) + e;
    let c = this.coefs.get(key);
    if (!c) {
      c = new Float64Array(2 * (d + e + 1));
      coefficients(d, e).forEach((v, s) => {
        const hi = Number(v);
        c![2 * s] = hi;
        c![2 * s + 1] = Number(v - BigInt(hi));
      });
      this.coefs.set(key, c);
    }
    return c;
  }

  /**
   * The part of Eq. 34 that depends on p_x only: for s = 0..K, 1/(1 − r_s) and (1 − r_s^w)/(1 − r_s)
   * as hi/lo pairs, written to `out` (4(K + 1) values) for `sum`.
   */
  terms(px: number, out: Float64Array = new Float64Array(4 * (this.K + 1))): Float64Array {
    // 1 − p_x exactly as a double-double, and (1 − p_x)^w.
    const ph = 1 - px;
    const pl = 1 - ph - px;
    const pw = ddPow(ph, pl, this.w);
    const pwh = pw[0]!;
    const pwl = pw[1]!;
    for (let s = 0; s <= this.K; s++) {
      // r = p̄ q^s; inv = 1/(1 − r); tail = inv·(1 − p̄^w q^{sw})
      ddMul(ph, pl, this.qs[2 * s]!, this.qs[2 * s + 1]!);
      ddAdd(1, 0, -R0, -R1);
      ddDiv(1, 0, R0, R1);
      const ih = R0;
      const il = R1;
      out[4 * s] = ih;
      out[4 * s + 1] = il;
      ddMul(pwh, pwl, this.qsw[2 * s]!, this.qsw[2 * s + 1]!);
      ddAdd(1, 0, -R0, -R1);
      ddMul(R0, R1, ih, il);
      out[4 * s + 2] = R0;
      out[4 * s + 3] = R1;
    }
    return out;
  }

  /** P(I_x < w | R_x) for d = c0 + c1, e = r0 + r1 − d, from `terms` of p_x. */
  sum(t: Float64Array, d: number, e: number): number {
    let nh = 0;
    let nl = 0;
    let dh = 0;
    let dl = 0;
    const coef = this.coef(d, e);
    const S = d + e;
    for (let s = 0; s <= S; s++) {
      const ch = coef[2 * s]!;
      const cl = coef[2 * s + 1]!;
      ddMul(ch, cl, t[4 * s]!, t[4 * s + 1]!);
      ddAdd(dh, dl, R0, R1);
      dh = R0;
      dl = R1;
      ddMul(ch, cl, t[4 * s + 2]!, t[4 * s + 3]!);
      ddAdd(nh, nl, R0, R1);
      nh = R0;
      nl = R1;
    }
    ddDiv(nh, nl, dh, dl);
    return Math.min(1, Math.max(0, R0 + R1));
  }

  /** P(I_x < w | R_x) for d = c0 + c1, e = r0 + r1 − d. */
  posterior(px: number, d: number, e: number): number {
    return this.sum(this.terms(px, this.scratch), d, e);
  }
}

/** Partitioned layout: bank j at j·⌊m/K⌋, roles rotated by ρ = ⌊v·K/2^16⌋ (v: hash number K). */
function fillGbf(f: FastGbf, at: number, H: Uint32Array, partitioned: boolean, perBank: number): void {
  const { idx, reset, K } = f;
  const k0 = f.p.k0;
  if (!partitioned) {
    for (let j = 0; j < K; j++) idx[j] = reduce(H[at + j]!, perBank);
    return;
  }
  const rho = Math.floor(((H[at + K]! >>> 16) * K) / 65536);
  for (let j = 0; j < K; j++) {
    idx[j] = j * perBank + reduce(H[at + j]!, perBank);
    reset[j] = (j - rho + K) % K < k0 ? 1 : 0;
  }
}

/** The queries of a stream grouped by p_x class (counting sort), computed once per stream. */
const BY_CLASS = new WeakMap<Stream, { start: Int32Array; order: Int32Array }>();

function queriesByClass(s: Stream): { start: Int32Array; order: Int32Array } {
  let g = BY_CLASS.get(s);
  if (g) return g;
  const n = s.pxValues.length;
  const start = new Int32Array(n + 1);
  for (let q = 0; q < s.queries; q++) start[s.pxClass[q]! + 1]!++;
  for (let c = 0; c < n; c++) start[c + 1]! += start[c]!;
  const at = start.slice(0, n);
  const order = new Int32Array(s.queries);
  for (let q = 0; q < s.queries; q++) order[at[s.pxClass[q]!]!++] = q;
  g = { start, order };
  BY_CLASS.set(s, g);
  return g;
}

/**
 * The filter runs the stream once and keeps each query's observation (d, e) and standard answer;
 * the posteriors are then computed class by class of p_x — Eq. 34's p_x-dependent terms once per
 * class, the sum once per (class, d, e) — and the answers scored in query order, as a loop that
 * computed each posterior at its query would.
 */
export function gbfTrial(x: TrialInput, p: GbfTrialParams, hashes: ItemHashes): TrialResult {
  const s = x.stream;
  const K = p.k0 + p.k1;
  const partitioned = p.layout === 'partitioned';
  const perBank = partitioned ? Math.floor(p.m / K) : p.m;
  const m = partitioned ? perBank * K : p.m;
  const f = new FastGbf({ ...p, m });
  const obs = new Int32Array(4);
  const { H, stride } = hashes;
  if (K + 1 > stride) throw new RangeError(`k0 + k1 = ${K} needs ${K + 1} hashes per item, ${stride} computed`);
  // Observation code d·(K + 1) + e of each query, and its standard answer.
  const code = new Uint16Array(s.queries);
  const hit = new Uint8Array(s.queries);
  for (let i = 0; i < s.items.length; i++) {
    fillGbf(f, s.items[i]! * stride, H, partitioned, perBank);
    if (i >= s.warmup) {
      const q = i - s.warmup;
      f.observe(obs);
      const d = obs[0]! + obs[1]!;
      code[q] = d * (K + 1) + obs[2]! + obs[3]! - d;
      hit[q] = obs[0] === obs[2] && obs[1] === obs[3] ? 1 : 0;
    }
    f.insert();
  }
  const eq = new Eq34(K, qEpsDD({ k0: p.k0, k1: p.k1, m, layout: p.layout }), x.w);
  const post = new Float64Array(s.queries);
  const terms = new Float64Array(4 * (K + 1));
  const codes = (K + 1) * (K + 1);
  const known = new Float64Array(codes);
  const stamp = new Int32Array(codes).fill(-1);
  const { start, order } = queriesByClass(s);
  for (let c = 0; c < s.pxValues.length; c++) {
    if (start[c] === start[c + 1]) continue;
    eq.terms(s.pxValues[c]!, terms);
    for (let j = start[c]!; j < start[c + 1]!; j++) {
      const q = order[j]!;
      const o = code[q]!;
      if (stamp[o] !== c) {
        stamp[o] = c;
        known[o] = eq.sum(terms, Math.floor(o / (K + 1)), o % (K + 1));
      }
      post[q] = known[o]!;
    }
  }
  const r = newResult();
  for (let q = 0; q < s.queries; q++) score(r, q, x, hit[q] === 1, post[q]!);
  return r;
}

// ---- Simple Buffer and prior only --------------------------------------------------------------

/**
 * Last insert position of each bph-bit hash value: a direct table up to 2^20 values, an
 * open-addressing table above (the streams have at most a few 10^5 distinct items).
 */
class LastSeen {
  private readonly direct: Int32Array | null;
  private readonly keys: Uint32Array | null;
  private readonly used: Uint8Array | null;
  private readonly vals: Int32Array | null;
  private readonly mask: number;

  constructor(bph: number, distinctItems: number) {
    if (bph <= 20) {
      this.direct = new Int32Array(2 ** bph).fill(-2147483648);
      this.keys = this.used = this.vals = null;
      this.mask = 0;
    } else {
      const cap = 2 ** Math.max(10, Math.ceil(Math.log2(4 * distinctItems)));
      this.direct = null;
      this.keys = new Uint32Array(cap);
      this.used = new Uint8Array(cap);
      this.vals = new Int32Array(cap);
      this.mask = cap - 1;
    }
  }

  private slot(h: number): number {
    let at = fmix(h ^ 0x2545f491) & this.mask;
    while (this.used![at] && this.keys![at] !== h) at = (at + 1) & this.mask;
    return at;
  }

  get(h: number): number {
    if (this.direct) return this.direct[h]!;
    const at = this.slot(h);
    return this.used![at] ? this.vals![at]! : -2147483648;
  }

  set(h: number, pos: number): void {
    if (this.direct) {
      this.direct[h] = pos;
      return;
    }
    const at = this.slot(h);
    this.used![at] = 1;
    this.keys![at] = h;
    this.vals![at] = pos;
  }
}

export function bufferTrial(x: TrialInput, delta: number, bph: number, hashes: ItemHashes): TrialResult {
  const s = x.stream;
  const seen = new LastSeen(bph, s.distinct);
  const Dd = s.D(delta);
  const postFound = Array.from(s.pxValues, (px) => bufferPosterior(px, x.w, delta, bph, Dd, true));
  const postMissing = Array.from(s.pxValues, (px) => bufferPosterior(px, x.w, delta, bph, Dd, false));
  const shift = 32 - bph;
  const r = newResult();
  for (let i = 0; i < s.items.length; i++) {
    const h32 = hashes.H[s.items[i]! * hashes.stride]!;
    const h = bph === 32 ? h32 : h32 >>> shift;
    if (i >= s.warmup) {
      const q = i - s.warmup;
      const cls = s.pxClass[q]!;
      const found = seen.get(h) >= i - delta;
      score(r, q, x, found, found ? postFound[cls]! : postMissing[cls]!);
    }
    seen.set(h, i);
  }
  return r;
}

/**
 * The prior's calibration: the mean over the queries of its P(I_x < w), and the fraction of
 * queries with I_x < w — equal when p_x describes the stream.
 */
export function priorCalibration(x: TrialInput): { meanPrior: number; inWindow: number } {
  const s = x.stream;
  const post = Array.from(s.pxValues, (px) => priorPosterior(px, x.w));
  let prior = 0;
  let pos = 0;
  for (let q = 0; q < s.queries; q++) {
    prior += post[s.pxClass[q]!]!;
    pos += x.inWindow[q]!;
  }
  return { meanPrior: prior / s.queries, inWindow: pos / s.queries };
}

export function priorTrial(x: TrialInput): TrialResult {
  const s = x.stream;
  const post = Array.from(s.pxValues, (px) => priorPosterior(px, x.w));
  const r = newResult();
  for (let q = 0; q < s.queries; q++) score(r, q, x, false, post[s.pxClass[q]!]!);
  r.standard = NaN;
  return r;
}

// Double-double helpers writing their result to R0 (hi) and R1 (lo).
let R0 = 0;
let R1 = 0;
const SPLIT = 134217729;

function ddAdd(ah: number, al: number, bh: number, bl: number): void {
  let s = ah + bh;
  let bb = s - ah;
  let e = ah - (s - bb) + (bh - bb);
  const t = al + bl;
  bb = t - al;
  const f = al - (t - bb) + (bl - bb);
  e += t;
  let h = s + e;
  e = e - (h - s);
  s = h;
  e += f;
  h = s + e;
  R1 = e - (h - s);
  R0 = h;
}

function ddMul(ah: number, al: number, bh: number, bl: number): void {
  const p = ah * bh;
  const ca = SPLIT * ah;
  const a1 = ca - (ca - ah);
  const a2 = ah - a1;
  const cb = SPLIT * bh;
  const b1 = cb - (cb - bh);
  const b2 = bh - b1;
  const e = a1 * b1 - p + a1 * b2 + a2 * b1 + a2 * b2 + (ah * bl + al * bh);
  const h = p + e;
  R1 = e - (h - p);
  R0 = h;
}

function ddDiv(ah: number, al: number, bh: number, bl: number): void {
  const q1 = ah / bh;
  ddMul(q1, 0, bh, bl);
  ddAdd(ah, al, -R0, -R1);
  const rh = R0;
  const rl = R1;
  const q2 = rh / bh;
  ddMul(q2, 0, bh, bl);
  ddAdd(rh, rl, -R0, -R1);
  const q3 = R0 / bh;
  const s = q1 + q2;
  ddAdd(s, q2 - (s - q1), q3, 0);
}

function ddPow(h: number, l: number, n: number): Float64Array {
  let rh = 1;
  let rl = 0;
  let xh = h;
  let xl = l;
  let e = n;
  while (e > 0) {
    if (e & 1) {
      ddMul(rh, rl, xh, xl);
      rh = R0;
      rl = R1;
    }
    e = Math.floor(e / 2);
    if (e > 0) {
      ddMul(xh, xl, xh, xl);
      xh = R0;
      xl = R1;
    }
  }
  return Float64Array.of(rh, rl);
}
