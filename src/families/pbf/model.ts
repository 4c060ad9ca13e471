/**
 * Reference models of the persistent Bloom filters of Peng et al., "Persistent Bloom Filter:
 * Membership Testing for the Entire History" (SIGMOD 2018): SBF (§3.1), PBF-1 (§4.1, Algorithms
 * 1 and 2) and PBF-2 (§4.2, Algorithms 3 and 4), each answering a temporal membership query
 * q(x, [s, e]) — "was x inserted at some time t in [s, e]?" — with no false negative.
 *
 * Time. The paper's times are 1..T; here they are 0..T−1 (t_here = t_paper − 1), and the
 * decomposition is the complete binary one over [0, 2^D) with D = ⌈log2 T⌉: level "height" h has
 * granularity g = 2^h, so the paper's level ℓ with g_ℓ = 2^{L−1−ℓ} is height h = L − 1 − ℓ, and
 * its mapping M_ℓ(t) = ⌈t/g_ℓ⌉ (Eq. 7) is cell = ⌊t / 2^h⌋ here.
 *
 * A level's Bloom filter is k slices of s bits (a partitioned Bloom filter: slice j is addressed
 * by hash j only, so in hardware each slice is one block RAM read and written once per op).
 * Probe (h, x, c) tests/sets bit H_{h,j}(c ‖ x) mod s of slice j for every j; H_{h,j} is H3
 * (src/ir/h3.ts) over the (D + keyBits)-bit value cell ‖ key (key in the low bits), keyed by the
 * config's seed, salt 64·h + j, 32 output bits; for s = 2^b the index is the low b bits, which is
 * the b-bit H3 of the same matrix (its first b rows) — what the RTL computes.
 *
 * Canonical cover (PBF-2's query, §4.2): the cover C([s, e]) of the complete binary decomposition
 * B(T), computed bottom-up with l = s, r = e + 1: at height h, l_h = ⌈s/2^h⌉ and r_h = ⌊(e+1)/2^h⌋;
 * while l_h < r_h, l_h odd gives the "left" interval (h, l_h) and r_h odd the "right" interval
 * (h, r_h − 1). At most one left and one right interval per level ([13] in the paper; §5.2:
 * "at most two intervals per level"), exactly the intervals Algorithm 3 finds.
 *
 * PBF-2's answer is the OR of the cover's probes: Eq. 8 (q = q_1 ∨ … ∨ q_f) and Theorem 5.3 (one-
 * sided error). The prose after Eq. 8 ("returns 0 as soon as there is a level that reports 0, 1 iff
 * all involved levels report 1") would be an AND, which has false negatives (x inserted in one
 * cover interval only is missed by the others); the model follows the equation, and a test shows
 * the AND reading gives false negatives where the OR gives none.
 */
import { h3Matrix, h3Tables } from '../../ir/h3.js';
import type { LevelSpec } from './types.js';

/** Salt of hash j of the level of height h. */
export function hashSalt(height: number, j: number): number {
  return 64 * height + j;
}

/** Key bytes, little-endian, of a key of keyBits bits. */
export function keyBytes(key: bigint, keyBits: number): Uint8Array {
  const n = Math.ceil(keyBits / 8);
  const out = new Uint8Array(n);
  let v = key;
  for (let i = 0; i < n; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** The H3 functions H_{h,j}(cell ‖ key) of one (seed, keyBits, D), as byte tables (exact: H3 is linear). */
export class PairHashes {
  private readonly keyT = new Map<number, Uint32Array>();
  private readonly cellT = new Map<number, Uint32Array>();
  readonly keyByteCount: number;
  readonly cellByteCount: number;

  constructor(
    readonly seed: number,
    readonly keyBits: number,
    readonly timeBits: number,
  ) {
    this.keyByteCount = Math.ceil(keyBits / 8);
    this.cellByteCount = Math.max(1, Math.ceil(timeBits / 8));
  }

  /** The byte tables of H_{h,j} (salt 64·h + j): key bytes and cell bytes. */
  tables(salt: number): { key: Uint32Array; cell: Uint32Array } {
    let key = this.keyT.get(salt);
    let cell = this.cellT.get(salt);
    if (!key || !cell) {
      const width = this.keyBits + this.timeBits;
      const rows = h3Matrix(this.seed, salt, width, 32);
      const keyMask = (1n << BigInt(this.keyBits)) - 1n;
      key = h3Tables(
        rows.map((r) => r & keyMask),
        this.keyBits,
      );
      cell = h3Tables(
        rows.map((r) => r >> BigInt(this.keyBits)),
        Math.max(1, this.timeBits),
      );
      this.keyT.set(salt, key);
      this.cellT.set(salt, cell);
    }
    return { key, cell };
  }

  /** The key's part of H_{h,j} (XOR with `cellPart` gives the hash of cell ‖ key). */
  keyPart(height: number, j: number, kb: Uint8Array): number {
    const t = this.tables(hashSalt(height, j)).key;
    let h = 0;
    for (let i = 0; i < kb.length; i++) h ^= t[i * 256 + kb[i]!]!;
    return h >>> 0;
  }

  cellPart(height: number, j: number, cell: number): number {
    const t = this.tables(hashSalt(height, j)).cell;
    let h = 0;
    for (let i = 0; i < this.cellByteCount; i++) h ^= t[i * 256 + ((cell >>> (8 * i)) & 255)]!;
    return h >>> 0;
  }

  hash(height: number, j: number, kb: Uint8Array, cell: number): number {
    return (this.keyPart(height, j, kb) ^ this.cellPart(height, j, cell)) >>> 0;
  }
}

/**
 * One Bloom filter of k slices of s bits over (cell, key) pairs. Its hash functions are those of
 * height `saltHeight` (its own height, except for a root level grown from another: it keeps the
 * functions of the filter it was cloned from, which is what makes the clone exact).
 */
export class LevelFilter {
  readonly bits: Uint8Array;
  constructor(
    readonly spec: LevelSpec,
    readonly hashes: PairHashes,
    readonly saltHeight = spec.height,
  ) {
    this.bits = new Uint8Array(Math.max(0, spec.k * spec.sliceBits));
  }

  private index(j: number, kb: Uint8Array, cell: number): number {
    const s = this.spec.sliceBits;
    return j * s + (this.hashes.hash(this.saltHeight, j, kb, cell) % s);
  }

  insert(kb: Uint8Array, cell: number): void {
    for (let j = 0; j < this.spec.k; j++) this.bits[this.index(j, kb, cell)] = 1;
  }

  /** Membership of (x, cell); a level without bits answers true (it cannot rule anything out). */
  probe(kb: Uint8Array, cell: number): boolean {
    for (let j = 0; j < this.spec.k; j++) if (this.bits[this.index(j, kb, cell)] === 0) return false;
    return true;
  }

  clear(): void {
    this.bits.fill(0);
  }

  /** Word `addr` of slice j, `wordBits` bits (bit i = slice bit addr·W + i). */
  word(j: number, addr: number, wordBits: number): bigint {
    let w = 0n;
    const base = j * this.spec.sliceBits + addr * wordBits;
    for (let i = wordBits - 1; i >= 0; i--) w = (w << 1n) | BigInt(this.bits[base + i]!);
    return w;
  }
}

export interface CoverInterval {
  height: number;
  cell: number;
  side: 'left' | 'right';
}

/** C([s, e]) over the complete binary decomposition of [0, 2^D) (see the header); s <= e < 2^D. */
export function canonicalCover(s: number, e: number, D: number): CoverInterval[] {
  const out: CoverInterval[] = [];
  let l = s;
  let r = e + 1;
  for (let h = 0; h <= D && l < r; h++) {
    if (l & 1) out.push({ height: h, cell: l++, side: 'left' });
    if (r & 1) out.push({ height: h, cell: --r, side: 'right' });
    l >>= 1;
    r >>= 1;
  }
  return out;
}

/** The same cover in closed form per level (what the RTL computes for every level at once). */
export function coverAtLevel(s: number, e: number, h: number): { left: number | null; right: number | null } {
  const l = Math.ceil(s / 2 ** h);
  const r = Math.floor((e + 1) / 2 ** h);
  if (l >= r) return { left: null, right: null };
  return { left: l & 1 ? l : null, right: r & 1 ? r - 1 : null };
}

/** Why a request is refused (a response flag in hardware, an error in the model's checked API). */
export type RequestError = 'time went backwards' | 'query start after end' | 'time beyond the horizon';

/** Options of a levelled model. */
export interface LevelledOptions {
  seed: number;
  keyBits: number;
  /** D: times are 0 .. 2^D − 1 (a growing model: the depth it starts with). */
  timeBits: number;
  /** Times at or beyond it are refused (a growing model: 2^hashTimeBits). */
  horizon: number;
  /** Width of the cell field the hashes read (default timeBits; a growing model needs room for later depths). */
  hashTimeBits?: number;
  /** PBF-2 only: add root levels as time passes 2^D (Algorithm 4, see `grow`) instead of refusing. */
  grow?: boolean;
}

/**
 * A persistent filter made of levels (SBF: the level of height 0 only; PBF-2: heights 0..D).
 * Inserts must come in non-decreasing time (streaming, §4: "time advances"); `check*` say why a
 * request is refused, and the refused request changes nothing.
 *
 * Streaming growth (PBF-2, §4.2 "Dynamic case", Algorithm 4), with `grow`: an insert at t ≥ 2^D
 * first adds root levels until t < 2^D. Heights here are fixed granularities (height h: cells of
 * 2^h instants), so the levels already there keep their meaning — Algorithm 4's renumbering
 * (b_i → b_{i+1} with g unchanged) is the identity in this indexing — and each growth adds the
 * level of height D + 1, whose one cell so far, [0, 2^{D+1}), holds exactly the keys of [0, 2^D):
 * the pairs (x, 0) of the old root (height D, one cell). So the new root is a copy of the old
 * root's bits, hashed with the old root's functions: exact, the same bits as a filter that had
 * the level from the start with those functions (a test checks it bit for bit).
 * Algorithm 4 as printed clones the paper's level 0, which has two cells (g_0 = 2^{L_c − 1} over
 * [1, 2^{L_c}]: pairs (x, 1) and (x, 2)), into a level whose cell 1 is now the whole old range: a
 * key seen only in the old second half is then missed by a query whose cover takes the new
 * level's cell 1 (a false negative, against Theorem 5.3), and found by one that takes cell 2 (a
 * range it was never in). The paper's levels lack the one-cell root this model keeps (height D);
 * with it, the clone is right. A test runs the printed form and shows the false negatives.
 */
export class LevelledModel {
  readonly hashes: PairHashes;
  /** Level by height (null: no level of that height). */
  readonly byHeight: (LevelFilter | null)[];
  readonly levels: LevelFilter[];
  /** Time of the last insert (0 after a clear). */
  now = 0;
  /** Probes of the last query (mt-queries into one level's filter). */
  lastProbes = 0;
  /** Inserts that moved time forward (the family's "aging events"). */
  timeSteps = 0;
  /** D now: times 0 .. 2^D − 1 are in range (grows with `grow`). */
  depth: number;
  /** Root levels added by streaming growth. */
  growths = 0;

  constructor(
    readonly variant: 'sbf' | 'pbf2',
    specs: readonly LevelSpec[],
    readonly o: LevelledOptions,
  ) {
    if (o.grow && variant !== 'pbf2') throw new Error('pbf model: streaming growth is PBF-2 only');
    this.depth = o.timeBits;
    this.hashes = new PairHashes(o.seed, o.keyBits, o.hashTimeBits ?? o.timeBits);
    this.levels = specs.map((sp) => new LevelFilter(sp, this.hashes));
    this.byHeight = Array.from({ length: o.timeBits + 1 }, () => null);
    for (const l of this.levels) this.byHeight[l.spec.height] = l;
    if (o.grow && !this.byHeight[o.timeBits])
      throw new Error(`pbf model: streaming growth needs the root level (height ${o.timeBits})`);
  }

  /**
   * A PBF-2 that grows from one level (T = 1, the root of height 0) as time passes, every level
   * of `k` slices of `sliceBits` bits (the equal split per level), hashes over 32-bit cells.
   */
  static growing(o: {
    seed: number;
    keyBits: number;
    k: number;
    sliceBits: number;
    hashTimeBits?: number;
  }): LevelledModel {
    const hashTimeBits = o.hashTimeBits ?? 32;
    return new LevelledModel('pbf2', [{ height: 0, k: o.k, sliceBits: o.sliceBits }], {
      seed: o.seed,
      keyBits: o.keyBits,
      timeBits: 0,
      horizon: 2 ** hashTimeBits,
      hashTimeBits,
      grow: true,
    });
  }

  /** Adds the root of height D + 1: a copy of the root of height D, with its hash functions (see the class). */
  grow(): void {
    const root = this.byHeight[this.depth]!;
    const next = new LevelFilter({ ...root.spec, height: this.depth + 1 }, this.hashes, root.saltHeight);
    next.bits.set(root.bits);
    this.levels.push(next);
    this.byHeight.push(next);
    this.depth++;
    this.growths++;
  }

  checkInsert(t: number): RequestError | null {
    if (t >= this.o.horizon) return 'time beyond the horizon';
    return t < this.now ? 'time went backwards' : null;
  }

  checkQuery(s: number, e: number): RequestError | null {
    if (e >= this.o.horizon) return 'time beyond the horizon';
    return s > e ? 'query start after end' : null;
  }

  insert(key: bigint | Uint8Array, t: number): RequestError | null {
    const err = this.checkInsert(t);
    if (err) return err;
    if (this.o.grow) while (t >= 2 ** this.depth) this.grow();
    const kb = key instanceof Uint8Array ? key : keyBytes(key, this.o.keyBits);
    for (const l of this.levels) l.insert(kb, Math.floor(t / 2 ** l.spec.height));
    if (t > this.now) this.timeSteps++;
    this.now = t;
    return null;
  }

  probe(height: number, kb: Uint8Array, cell: number): boolean {
    this.lastProbes++;
    const l = this.byHeight[height];
    return l ? l.probe(kb, cell) : true;
  }

  /**
   * q(x, [s, e]) (false for a refused query). SBF: the OR of the mt-queries (x, t), t = s..e
   * (§3.1), evaluated in order and stopped at the first 1 when `shortCircuit`; PBF-2: Eq. 8, the
   * OR over the canonical cover's probes (all of them unless `shortCircuit`).
   */
  query(key: bigint | Uint8Array, s: number, e: number, shortCircuit = true): boolean {
    this.lastProbes = 0;
    if (this.checkQuery(s, e)) return false;
    const kb = key instanceof Uint8Array ? key : keyBytes(key, this.o.keyBits);
    let hit = false;
    // A growing filter has seen no time at or past 2^D: the rest of the range holds nothing.
    if (this.o.grow) {
      if (s >= 2 ** this.depth) return false;
      e = Math.min(e, 2 ** this.depth - 1);
    }
    if (this.variant === 'sbf') {
      for (let t = s; t <= e && !(hit && shortCircuit); t++) hit = this.probe(0, kb, t) || hit;
      return hit;
    }
    for (const iv of canonicalCover(s, e, this.depth)) {
      hit = this.probe(iv.height, kb, iv.cell) || hit;
      if (hit && shortCircuit) break;
    }
    return hit;
  }

  /** The §4.2 prose reading (AND over the cover's probes): kept only to test that it has false negatives. */
  queryProseAnd(key: bigint | Uint8Array, s: number, e: number): boolean {
    const kb = key instanceof Uint8Array ? key : keyBytes(key, this.o.keyBits);
    return canonicalCover(s, e, this.depth).every((iv) => this.probe(iv.height, kb, iv.cell));
  }

  clear(): void {
    for (const l of this.levels) l.clear();
    this.now = 0;
  }
}

/**
 * Every PBF-1 interval filter hashes the key alone with the same functions (salts of this pseudo-
 * height, cell 0), so a parent's filter is the bitwise OR of its children's (§4.1's streaming growth).
 */
export const PBF1_HEIGHT = 63;

/** A PBF-1 filter's place: the interval of height h (g·2^{h−G} long) with index `cell`, or the SBF. */
export interface Pbf1Spec {
  /** log2 of the leaf granularity g (§4.1: leaves of g time instants). */
  leafBits: number;
  timeBits: number;
  /** Sizes per interval filter: (height, cell) -> { k, bits }; the SBF b_{u+1}. */
  interval(height: number, cell: number): { k: number; sliceBits: number };
  sbf: { k: number; sliceBits: number };
}

/**
 * PBF-1 (§4.1): one Bloom filter per interval of the binary decomposition B(T, g) — heights G..D
 * with G = log2 g, 2^{D−h} intervals at height h, u = 2T/g − 1 in all — each over the element set
 * of its interval (keys only: each filter is its own set, all with the same hash functions), plus the SBF b_{u+1} over (x, t) pairs.
 * Insert (Algorithm 2): the SBF and the interval of every height containing t. Query (Algorithm 1,
 * Case 1/2): the cover of the whole leaves inside [s, e] (canonical cover on the leaf grid), ORed
 * (Eq. 5, route 2); the at most two leaves o_1, o_2 that overlap [s, e] partly are probed, and only
 * those that answer 1 send the SBF mt-queries of [s, e] ∩ I_o (route 3). The model keeps every
 * filter as its own bit array in one buffer. The streaming growth of Fig. 4 — a new parent made by
 * OR-ing its two children — builds the same bits as inserting into the parent directly when the
 * filters have the same size (the equal split): A' = A'_l ∪ A'_r, so b' = b'_l bitor b'_r (a test
 * checks it on the model); with unequal (β) sizes the paper's gcd merge of §6 applies instead.
 */
export class Pbf1Model {
  readonly hashes: PairHashes;
  private readonly offsets: number[][] = [];
  private readonly sizes: { k: number; sliceBits: number }[][] = [];
  readonly bits: Uint8Array;
  private readonly sbfAt: number;
  lastProbes = 0;

  constructor(
    readonly spec: Pbf1Spec,
    readonly o: { seed: number; keyBits: number },
  ) {
    this.hashes = new PairHashes(o.seed, o.keyBits, spec.timeBits);
    let at = 0;
    for (let h = 0; h <= spec.timeBits; h++) {
      this.offsets.push([]);
      this.sizes.push([]);
      if (h < spec.leafBits) continue;
      for (let c = 0; c < 2 ** (spec.timeBits - h); c++) {
        const sz = spec.interval(h, c);
        this.offsets[h]!.push(at);
        this.sizes[h]!.push(sz);
        at += sz.k * sz.sliceBits;
      }
    }
    this.sbfAt = at;
    this.bits = new Uint8Array(at + spec.sbf.k * spec.sbf.sliceBits);
  }

  private index(
    base: number,
    sz: { k: number; sliceBits: number },
    h: number,
    j: number,
    kb: Uint8Array,
    cell: number,
  ) {
    return base + j * sz.sliceBits + (this.hashes.hash(h, j, kb, cell) % sz.sliceBits);
  }

  /** Bit range of the interval filter (h, cell) in `bits`. */
  range(h: number, cell: number): { at: number; length: number } {
    const sz = this.sizes[h]![cell]!;
    return { at: this.offsets[h]![cell]!, length: sz.k * sz.sliceBits };
  }

  /** Inserts x into the interval filter (h, cell). */
  insertInterval(kb: Uint8Array, h: number, cell: number): void {
    const sz = this.sizes[h]![cell]!;
    for (let j = 0; j < sz.k; j++) this.bits[this.index(this.offsets[h]![cell]!, sz, PBF1_HEIGHT, j, kb, 0)] = 1;
  }

  insert(kb: Uint8Array, t: number): void {
    const sbf = this.spec.sbf;
    for (let j = 0; j < sbf.k; j++) this.bits[this.index(this.sbfAt, sbf, 0, j, kb, t)] = 1;
    for (let h = this.spec.leafBits; h <= this.spec.timeBits; h++) this.insertInterval(kb, h, Math.floor(t / 2 ** h));
  }

  probeInterval(kb: Uint8Array, h: number, cell: number): boolean {
    this.lastProbes++;
    const sz = this.sizes[h]![cell]!;
    for (let j = 0; j < sz.k; j++)
      if (this.bits[this.index(this.offsets[h]![cell]!, sz, PBF1_HEIGHT, j, kb, 0)] === 0) return false;
    return true;
  }

  probeSbf(kb: Uint8Array, t: number): boolean {
    this.lastProbes++;
    const sbf = this.spec.sbf;
    for (let j = 0; j < sbf.k; j++) if (this.bits[this.index(this.sbfAt, sbf, 0, j, kb, t)] === 0) return false;
    return true;
  }

  /** The query's plan: cover intervals (height, cell) and partial leaves with their overlap [a, b]. */
  plan(s: number, e: number): { cover: CoverInterval[]; partial: { cell: number; a: number; b: number }[] } {
    const G = this.spec.leafBits;
    const g = 2 ** G;
    const lo = Math.ceil(s / g); // first whole leaf
    const hi = Math.floor((e + 1) / g); // one past the last whole leaf
    const cover =
      lo < hi ? canonicalCover(lo, hi - 1, this.spec.timeBits - G).map((iv) => ({ ...iv, height: iv.height + G })) : [];
    const partial: { cell: number; a: number; b: number }[] = [];
    const first = Math.floor(s / g);
    const last = Math.floor(e / g);
    if (lo >= hi) {
      for (let c = first; c <= last; c++)
        partial.push({ cell: c, a: Math.max(s, c * g), b: Math.min(e, c * g + g - 1) });
    } else {
      if (s % g !== 0) partial.push({ cell: first, a: s, b: first * g + g - 1 });
      if ((e + 1) % g !== 0) partial.push({ cell: last, a: last * g, b: e });
    }
    return { cover, partial };
  }

  /** Algorithm 1 with the three routes of §4.1 Case 2; cover probes all made (route 2 ORs them). */
  query(kb: Uint8Array, s: number, e: number): boolean {
    this.lastProbes = 0;
    const p = this.plan(s, e);
    let hit = false;
    for (const iv of p.cover) if (this.probeInterval(kb, iv.height, iv.cell)) hit = true;
    if (hit) return true;
    for (const o of p.partial) {
      if (!this.probeInterval(kb, this.spec.leafBits, o.cell)) continue;
      for (let t = o.a; t <= o.b; t++) if (this.probeSbf(kb, t)) return true;
    }
    return false;
  }
}
