/**
 * Reference model of the Timing Bloom Filter (TBF) and the Block Timing Bloom Filter (BTBF),
 * Dautrich & Ravishankar §3, with the latent state the inferential BTBF (§4) needs.
 *
 * - m timers of `timerBits` bits. Timestamps cycle through 0..TΩ; the all-ones value is Tε
 *   (expired). TΩ = ⌈w/B⌉ + 1 + P (the minimum ⌈w/B⌉ + 1 plus padding P; B = 1 for the TBF).
 * - Insert x: every timer of R_x := T+; then the block counter b advances and T+ increments once
 *   every B insertions (§3.2.1).
 * - Age λ(T) = (T+ − T) mod (TΩ + 1); λ(Tε) = ∞. Expired at query time: λ ≥ ⌈(w − b)/B⌉ + 1
 *   (Definition 8).
 * - Expiry scan (§3.1.3): after every insertion, the next ⌈m/(B(P+1))⌉ timers in a fixed cyclic
 *   order are checked and those with λ ≥ ⌈w/B⌉ + 1 set to Tε. Every age from ⌈w/B⌉ + 1 to TΩ
 *   lasts B insertions, so each timer is visited while markable, before T+ comes back to it.
 * - Layout: `partitioned` (the hardware's: one bank of m/k timers per hash) or `shared` (the
 *   paper's single array of m timers, index = hash mod m).
 */
import { h3FromWords, h3Matrix, h3Tables } from '../../ir/h3.js';
import type { TbfParams } from './types.js';

export interface TbfDerivedNumbers {
  m: number;
  tOmega: number;
  tEps: number;
  /** Timers checked after each insertion. */
  scanPerInsert: number;
  /** λ at and above which the scanner marks a timer expired: ⌈w/B⌉ + 1. */
  markAge: number;
}

export function tbfNumbers(p: TbfParams): TbfDerivedNumbers {
  const m = p.k * p.timersPerBank;
  const tOmega = Math.ceil(p.window / p.blockSize) + 1 + p.padding;
  const tEps = 2 ** p.timerBits - 1;
  if (tOmega >= tEps) {
    throw new RangeError(
      `TΩ = ⌈w/B⌉ + 1 + P = ${tOmega} needs ${Math.ceil(Math.log2(tOmega + 2))} timer bits (Tε must stay free), timerBits is ${p.timerBits}`,
    );
  }
  return {
    m,
    tOmega,
    tEps,
    scanPerInsert: Math.ceil(m / (p.blockSize * (p.padding + 1))),
    markAge: Math.ceil(p.window / p.blockSize) + 1,
  };
}

/** Salt of the H3 unit of hash j (documented contract with the RTL). */
export function tbfSalt(j: number): number {
  return 0x1000 + j;
}

export interface TbfQuery {
  /** The standard answer: Pos iff no timer of R_x has expired. */
  hit: boolean;
  /** λ_x, the age of the oldest timestamp in R_x; Infinity if any has expired. */
  lambda: number;
  /** c_x: how many timers of R_x hold that oldest timestamp. */
  c: number;
  /** r_x: distinct timers in R_x (k when partitioned). */
  r: number;
  /** The block counter b at query time. */
  b: number;
}

export class TbfModel {
  readonly n: TbfDerivedNumbers;
  readonly timers: Uint32Array;
  private readonly tables: Uint32Array[];
  private readonly keyWords: Uint32Array;
  private readonly keyBytes: number;
  private readonly idx: number[];
  private readonly indexBits: number;
  tPlus = 0;
  b = 0;
  scanPtr = 0;

  constructor(readonly p: TbfParams) {
    this.n = tbfNumbers(p);
    this.timers = new Uint32Array(this.n.m).fill(this.n.tEps);
    const perHash = p.layout === 'partitioned' ? p.timersPerBank : this.n.m;
    this.indexBits = Math.ceil(Math.log2(perHash));
    if (this.indexBits > 32) throw new RangeError('at most 2^32 timers per hash');
    this.tables = Array.from({ length: p.k }, (_, j) =>
      h3Tables(h3Matrix(p.seed, tbfSalt(j), p.keyBits, this.indexBits), p.keyBits),
    );
    this.keyWords = new Uint32Array(Math.ceil(p.keyBits / 32));
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.idx = new Array<number>(p.k).fill(0);
  }

  /** Timer indexes of R_x (into `timers`). */
  indexes(key: bigint): number[] {
    let v = key;
    for (let i = 0; i < this.keyWords.length; i++) {
      this.keyWords[i] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    for (let j = 0; j < this.p.k; j++) {
      const h = h3FromWords(this.tables[j]!, this.keyWords, this.keyBytes);
      this.idx[j] =
        this.p.layout === 'partitioned' ? j * this.p.timersPerBank + (h % this.p.timersPerBank) : h % this.n.m;
    }
    return this.idx;
  }

  age(t: number): number {
    if (t === this.n.tEps) return Infinity;
    return (this.tPlus - t + this.n.tOmega + 1) % (this.n.tOmega + 1);
  }

  /** Expiry threshold on λ for the current b (Definition 8). */
  expireAge(): number {
    return Math.ceil((this.p.window - this.b) / this.p.blockSize) + 1;
  }

  query(key: bigint): TbfQuery {
    const idx = this.indexes(key);
    const seen = new Set<number>();
    let lambda = -1;
    let c = 0;
    const limit = this.expireAge();
    for (const i of idx) {
      if (seen.has(i)) continue;
      seen.add(i);
      let a = this.age(this.timers[i]!);
      if (a >= limit) a = Infinity;
      if (a > lambda) {
        lambda = a;
        c = 1;
      } else if (a === lambda) c++;
    }
    return { hit: lambda !== Infinity, lambda, c, r: seen.size, b: this.b };
  }

  insert(key: bigint): void {
    this.write(key);
    if (this.b === this.p.blockSize - 1) {
      this.tPlus = (this.tPlus + 1) % (this.n.tOmega + 1);
      this.b = 0;
    } else this.b++;
    this.scanStep();
  }

  /** Every timer of R_x := T+, and nothing else (a shard of an N-lane filter: time is global). */
  write(key: bigint): void {
    for (const i of this.indexes(key)) this.timers[i] = this.tPlus;
  }

  /** The answer (and latent state) as of before the insert. */
  testAndInsert(key: bigint): TbfQuery {
    const q = this.query(key);
    this.insert(key);
    return q;
  }

  /** One step of the expiry scan at the current T+ (after every insert; on lanes, when told). */
  scanStep(): void {
    const { m, markAge, scanPerInsert, tEps } = this.n;
    const t = this.p.timersPerWord;
    if (t !== undefined && this.p.layout === 'partitioned') {
      const words = this.p.timersPerBank / t;
      for (let j = 0; j < this.p.k; j++) {
        const base = j * this.p.timersPerBank + this.scanPtr * t;
        for (let i = 0; i < t; i++) {
          const v = this.timers[base + i]!;
          if (v !== tEps && this.age(v) >= markAge) this.timers[base + i] = tEps;
        }
      }
      this.scanPtr = this.scanPtr + 1 === words ? 0 : this.scanPtr + 1;
      return;
    }
    for (let s = 0; s < scanPerInsert; s++) {
      const t = this.timers[this.scanPtr]!;
      if (t !== tEps && this.age(t) >= markAge) this.timers[this.scanPtr] = tEps;
      this.scanPtr = this.scanPtr + 1 === m ? 0 : this.scanPtr + 1;
    }
  }

  clear(): void {
    this.timers.fill(this.n.tEps);
    this.tPlus = 0;
    this.b = 0;
    this.scanPtr = 0;
  }
}
