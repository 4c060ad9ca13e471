/**
 * Reference model of the Generalized Bloom Filter (GBF), Dautrich & Ravishankar §5 (after Laufer,
 * Velloso and Duarte), with the observations the inferential GBF (§5.3) needs.
 *
 * - m one-bit cells, all 0 after a clear. k0 + k1 hashes per item: R_{x,0} (the k0 reset cells)
 *   and R_{x,1} (the k1 set cells, less any that is also a reset cell).
 * - Insert x (§5.1): every cell of R_{x,1} := 1, then every cell of R_{x,0} := 0 (a reset wins).
 * - Query x (§5.2): Pos iff every cell of R_{x,0} is 0 and every cell of R_{x,1} is 1. The
 *   observation is c0 = |C_{x,0}| (reset cells that are 0) and c1 = |C_{x,1}| (set cells that are
 *   1) of r0 = |R_{x,0}|, r1 = |R_{x,1}| (Definition 13).
 * - Layout (see types.ts): `shared` is the paper's (hash j indexes all m cells, hashes 0..k0−1
 *   reset); `partitioned` is the hardware's (bank j of m/K cells gets hash j, and whether bank j
 *   resets for x follows the rotation ρ(x)): then r0 = k0 and r1 = k1 always.
 *
 * Hashes are the hardware's: H3 keyed by `seed`, salt gbfSalt(j) for hash/bank j and
 * GBF_ROLE_SALT for the 16-bit role hash v (ρ = ⌊v·K/2^16⌋), so memories compare bit for bit.
 */
import { h3FromWords, h3Matrix, h3Tables } from '../../ir/h3.js';
import type { GbfParams } from './types.js';

/** Salt of the H3 unit of hash (bank) j (documented contract with the RTL). */
export function gbfSalt(j: number): number {
  return 0x2000 + j;
}

/** Salt of the 16-bit role hash of the partitioned layout. */
export const GBF_ROLE_SALT = 0x2fff;
export const ROLE_HASH_BITS = 16;

/** ρ = ⌊v·K/2^16⌋: the rotation of the roles (exactly uniform over [0, K) when K is a power of two). */
export function rotationOf(v: number, K: number): number {
  return Math.floor((v * K) / 2 ** ROLE_HASH_BITS);
}

/** Bank j resets for an item of rotation ρ iff (j − ρ) mod K < k0. */
export function resetsAt(j: number, rho: number, k0: number, K: number): boolean {
  return (j - rho + K) % K < k0;
}

/** Cells per hash: m/K (partitioned) or m (shared). */
export function cellsPerHash(p: GbfParams): number {
  return p.layout === 'partitioned' ? p.m / (p.k0 + p.k1) : p.m;
}

export interface GbfQuery {
  /** The standard answer (§5.2). */
  hit: boolean;
  /** Cells of R_{x,0} that are 0 and of R_{x,1} that are 1, and the sizes of R_{x,0}, R_{x,1}. */
  c0: number;
  c1: number;
  r0: number;
  r1: number;
}

export class GbfModel {
  /** One byte per cell (0 or 1); partitioned: bank j is cells j·m/K .. (j+1)·m/K − 1. */
  readonly cells: Uint8Array;
  readonly K: number;
  private readonly perHash: number;
  private readonly tables: Uint32Array[];
  private readonly roleTable: Uint32Array | null;
  private readonly keyWords: Uint32Array;
  private readonly keyBytes: number;
  /** Cell of each hash for the last key hashed, and whether it resets. */
  readonly idx: Int32Array;
  readonly reset: Uint8Array;

  constructor(readonly p: GbfParams) {
    this.K = p.k0 + p.k1;
    if (p.k0 < 1 || p.k1 < 1) throw new RangeError('k0 and k1 must be at least 1');
    if (p.layout === 'partitioned' && p.m % this.K !== 0)
      throw new RangeError('partitioned: m must be a multiple of k0 + k1');
    this.perHash = cellsPerHash(p);
    if (this.perHash < 1) throw new RangeError('at least one cell per hash');
    const indexBits = Math.max(1, Math.ceil(Math.log2(this.perHash)));
    if (indexBits > 32) throw new RangeError('at most 2^32 cells per hash');
    this.cells = new Uint8Array(p.m);
    this.tables = Array.from({ length: this.K }, (_, j) =>
      h3Tables(h3Matrix(p.seed, gbfSalt(j), p.keyBits, indexBits), p.keyBits),
    );
    this.roleTable =
      p.layout === 'partitioned'
        ? h3Tables(h3Matrix(p.seed, GBF_ROLE_SALT, p.keyBits, ROLE_HASH_BITS), p.keyBits)
        : null;
    this.keyWords = new Uint32Array(Math.ceil(p.keyBits / 32));
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.idx = new Int32Array(this.K);
    this.reset = new Uint8Array(this.K);
  }

  /** Hashes `key` into `idx` (global cell indexes) and `reset` (1: the hash resets its cell). */
  hash(key: bigint): void {
    let v = key;
    for (let i = 0; i < this.keyWords.length; i++) {
      this.keyWords[i] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
    const { K, perHash } = this;
    const rho = this.roleTable ? rotationOf(h3FromWords(this.roleTable, this.keyWords, this.keyBytes), K) : 0;
    for (let j = 0; j < K; j++) {
      const h = h3FromWords(this.tables[j]!, this.keyWords, this.keyBytes) % perHash;
      if (this.roleTable) {
        this.idx[j] = j * perHash + h;
        this.reset[j] = resetsAt(j, rho, this.p.k0, K) ? 1 : 0;
      } else {
        this.idx[j] = h;
        this.reset[j] = j < this.p.k0 ? 1 : 0;
      }
    }
  }

  /** The observation for the key hashed last (§5.3, Definition 13). */
  private observe(): GbfQuery {
    const { K, idx, reset, cells } = this;
    let c0 = 0;
    let c1 = 0;
    let r0 = 0;
    let r1 = 0;
    for (let j = 0; j < K; j++) {
      const cell = idx[j]!;
      // A cell counts once: R_{x,0} holds the distinct reset cells, R_{x,1} the distinct set
      // cells that are not reset cells (shared layout only; partitioned cells never meet).
      let dup = false;
      for (let i = 0; i < K && !dup; i++) {
        if (i === j || idx[i] !== cell) continue;
        if (reset[i] && !reset[j])
          dup = true; // a set hash meeting a reset cell
        else if (reset[i] === reset[j] && i < j) dup = true; // the same kind, counted at its first hash
      }
      if (dup) continue;
      if (reset[j]) {
        r0++;
        if (cells[cell] === 0) c0++;
      } else {
        r1++;
        if (cells[cell] === 1) c1++;
      }
    }
    return { hit: c0 === r0 && c1 === r1, c0, c1, r0, r1 };
  }

  query(key: bigint): GbfQuery {
    this.hash(key);
    return this.observe();
  }

  private write(): void {
    const { K, idx, reset, cells } = this;
    for (let j = 0; j < K; j++) if (!reset[j]) cells[idx[j]!] = 1;
    for (let j = 0; j < K; j++) if (reset[j]) cells[idx[j]!] = 0;
  }

  insert(key: bigint): void {
    this.hash(key);
    this.write();
  }

  /** The answer (and observation) as of before the insert. */
  testAndInsert(key: bigint): GbfQuery {
    this.hash(key);
    const q = this.observe();
    this.write();
    return q;
  }

  clear(): void {
    this.cells.fill(0);
  }

  /** Word `a` of bank `bank` (partitioned), `width` cells, cell 0 in bit 0. */
  /** Writes word `a` of bank `bank` (a snapshot's block RAM word; the inverse of `word`). */
  setWord(bank: number, a: number, width: number, value: bigint): void {
    const base = bank * this.perHash + a * width;
    for (let i = 0; i < width; i++) this.cells[base + i] = Number((value >> BigInt(i)) & 1n);
  }

  word(bank: number, a: number, width: number): bigint {
    const base = bank * this.perHash + a * width;
    let v = 0n;
    for (let i = width - 1; i >= 0; i--) v = (v << 1n) | BigInt(this.cells[base + i]!);
    return v;
  }
}
