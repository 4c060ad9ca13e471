/**
 * The paper's importance-aware Bloom filter over one array of n cells, every scheme of Boraskar §5
 * as a model (the ones that need a global view of all cells cannot run at one op per cycle in a
 * block-RAM pipeline; the pipeline's variant is ./model.ts):
 *
 * - insertion (§5.1): M-insert (Algorithm 1: the k cells set to M) and Imp-insert (Algorithm 2:
 *   set to the item's importance). Importances are 1..Z (Z = 50 in §7); a cell holds 0..M, so
 *   Imp-insert writes ⌈imp·M/Z⌉ (§7: "these steps correspond to the four importance values to
 *   which the elements lying in each range are mapped").
 * - deletion (§5.2), run before the k cells are written, p times per insert:
 *   random (Alg. 3: a cell uniformly at random, decremented unless 0);
 *   probabilistic (Alg. 4: a cell with probability ∝ 1/totalImp, decremented unless 0 — cells no
 *     insert has touched count as totalImp 1, the least importance, so the weight is finite);
 *   probabilisticP (Alg. 5: the same over the non-zero cells, so exactly p decrements unless fewer
 *     than p cells are non-zero — the retry of line 6 taken to its end);
 *   probabilisticVal (Alg. 6: ∝ 1/cell value over the non-zero cells);
 *   minImp (Alg. 7: the p non-zero cells of least totalImp, ties by index, each decremented once);
 *   minImpPriority (Alg. 8: p times the argmin over all cells of totalImp + priority, decremented
 *     unless 0, its priority raised by M; no retry, as printed).
 *   totalImp[c] is the sum of the importances of the inserts that hashed to c (§5.2, "the
 *   summation of importance values mapped to each cell till time of deletion"); clear resets it.
 * - reinsertion (§5.3): a cache of the last `capacity` inserted items of importance ≥ `threshold`;
 *   after an arrival's insert, if the condition holds (periodic: every `every` inserts; zeros: the
 *   fraction of zero cells below `zeros`), one cached item is reinserted — the oldest, which then
 *   moves to the back (fifo), or one uniformly at random (random). At most one per arrival.
 * - the heuristics of Table 1 (§5.4): BF, SBF, IBF1 … IBF6 (`HEURISTICS`).
 * - query: "seen" iff all k cells are non-zero.
 *
 * Hashing: index_i(x) = ⌊fmix32(x ⊕ salt_i) · n / 2^32⌋ (MurmurHash3's finaliser, salts from the
 * seed); the random choices come from a xorshift32 generator seeded from the seed.
 */

export type InsertScheme = 'max' | 'imp';
export type DeleteScheme =
  'none' | 'random' | 'probabilistic' | 'probabilisticP' | 'probabilisticVal' | 'minImp' | 'minImpPriority';

export interface Reinsertion {
  threshold: number;
  capacity: number;
  strategy: 'fifo' | 'random';
  condition: { periodic: number } | { zeros: number };
}

export interface SchemeParams {
  /** Cells (the paper's n). */
  n: number;
  k: number;
  /** Deletes per insert (the paper's p). */
  p: number;
  /** The largest cell value (the paper's M). */
  M: number;
  /** The largest importance (importances are 1..Z). */
  Z: number;
  insert: InsertScheme;
  delete: DeleteScheme;
  seed: number;
  reinsertion?: Reinsertion;
}

export type Heuristic = 'BF' | 'SBF' | 'IBF1' | 'IBF2' | 'IBF3' | 'IBF4' | 'IBF5' | 'IBF6';

/** Table 1 (§5.4). BF is M-insert with M = 1 and no deletion. */
export const HEURISTICS: Readonly<Record<Heuristic, { insert: InsertScheme; delete: DeleteScheme; M1?: boolean }>> = {
  BF: { insert: 'max', delete: 'none', M1: true },
  SBF: { insert: 'max', delete: 'random' },
  IBF1: { insert: 'imp', delete: 'random' },
  IBF2: { insert: 'imp', delete: 'minImp' },
  IBF3: { insert: 'max', delete: 'probabilisticP' },
  IBF4: { insert: 'max', delete: 'minImp' },
  IBF5: { insert: 'imp', delete: 'probabilisticP' },
  IBF6: { insert: 'imp', delete: 'probabilisticVal' },
};

/** The parameters of a Table 1 heuristic with the given sizes. */
export function heuristic(h: Heuristic, s: Omit<SchemeParams, 'insert' | 'delete'>): SchemeParams {
  const d = HEURISTICS[h];
  return { ...s, insert: d.insert, delete: d.delete, M: d.M1 ? 1 : s.M };
}

export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Sums of non-negative weights with O(log n) update and weighted sampling (a Fenwick tree). */
class WeightTree {
  private readonly t: Float64Array;
  readonly w: Float64Array;
  private readonly top: number;
  total = 0;
  constructor(readonly n: number) {
    this.t = new Float64Array(n + 1);
    this.w = new Float64Array(n);
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = top;
  }
  set(i: number, v: number): void {
    const d = v - this.w[i]!;
    if (d === 0) return;
    this.w[i] = v;
    this.total += d;
    for (let j = i + 1; j <= this.n; j += j & -j) this.t[j]! += d;
  }
  /** The index whose cumulative range holds u (0 ≤ u < total). */
  find(u: number): number {
    let pos = 0;
    for (let step = this.top; step > 0; step >>= 1) {
      const nx = pos + step;
      if (nx <= this.n && this.t[nx]! <= u) {
        pos = nx;
        u -= this.t[nx]!;
      }
    }
    return Math.min(pos, this.n - 1);
  }
  /** Rebuilds the sums from the weights (float drift after many updates). */
  rebuild(): void {
    this.t.fill(0);
    this.total = 0;
    for (let i = 0; i < this.n; i++) {
      const v = this.w[i]!;
      this.total += v;
      for (let j = i + 1; j <= this.n; j += j & -j) this.t[j]! += v;
    }
  }
}

/** A min-heap of (key, cell, version) with lazy deletion. */
class LazyHeap {
  private keys = new Float64Array(1024);
  private ids = new Int32Array(1024);
  private vers = new Int32Array(1024);
  size = 0;
  push(key: number, id: number, ver: number): void {
    if (this.size === this.keys.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.keys = grow(this.keys, (n) => new Float64Array(n));
      this.ids = grow(this.ids, (n) => new Int32Array(n));
      this.vers = grow(this.vers, (n) => new Int32Array(n));
    }
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(key, id, this.keys[p]!, this.ids[p]!)) break;
      this.move(p, i);
      i = p;
    }
    this.keys[i] = key;
    this.ids[i] = id;
    this.vers[i] = ver;
  }
  private less(k1: number, i1: number, k2: number, i2: number): boolean {
    return k1 < k2 || (k1 === k2 && i1 < i2);
  }
  private move(from: number, to: number): void {
    this.keys[to] = this.keys[from]!;
    this.ids[to] = this.ids[from]!;
    this.vers[to] = this.vers[from]!;
  }
  /** Pops the minimum: [id, version], or null when empty. */
  pop(): [number, number] | null {
    if (this.size === 0) return null;
    const id = this.ids[0]!;
    const ver = this.vers[0]!;
    const n = --this.size;
    const key = this.keys[n]!;
    const lid = this.ids[n]!;
    const lver = this.vers[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.less(this.keys[c + 1]!, this.ids[c + 1]!, this.keys[c]!, this.ids[c]!)) c++;
      if (!this.less(this.keys[c]!, this.ids[c]!, key, lid)) break;
      this.move(c, i);
      i = c;
    }
    this.keys[i] = key;
    this.ids[i] = lid;
    this.vers[i] = lver;
    return [id, ver];
  }
  clear(): void {
    this.size = 0;
  }
}

export class SchemeIbf {
  readonly cells: Uint16Array;
  readonly totalImp: Float64Array;
  /** Cells at 0. */
  zeros: number;
  inserts = 0;
  reinsertions = 0;
  private rng: number;
  private readonly salts: number[];
  private readonly idx: Int32Array;
  private readonly tree: WeightTree | null;
  private readonly heap: LazyHeap | null;
  private readonly ver: Int32Array | null;
  private readonly priority: Float64Array | null;
  private readonly cache: { keys: Int32Array; imps: Int32Array; head: number; size: number } | null;
  private treeUpdates = 0;

  constructor(readonly s: SchemeParams) {
    if (s.M < 1 || s.M > 0xffff) throw new RangeError(`M must be 1..65535, got ${s.M}`);
    this.cells = new Uint16Array(s.n);
    this.totalImp = new Float64Array(s.n);
    this.zeros = s.n;
    this.rng = fmix32(s.seed ^ 0x1bf5eed) || 1;
    this.salts = Array.from({ length: s.k }, (_, i) => fmix32((s.seed * 31 + i + 1) >>> 0));
    this.idx = new Int32Array(s.k);
    const probabilistic =
      s.delete === 'probabilistic' || s.delete === 'probabilisticP' || s.delete === 'probabilisticVal';
    this.tree = probabilistic ? new WeightTree(s.n) : null;
    this.heap = s.delete === 'minImp' || s.delete === 'minImpPriority' ? new LazyHeap() : null;
    this.ver = this.heap ? new Int32Array(s.n) : null;
    this.priority = s.delete === 'minImpPriority' ? new Float64Array(s.n) : null;
    const r = s.reinsertion;
    this.cache = r ? { keys: new Int32Array(r.capacity), imps: new Int32Array(r.capacity), head: 0, size: 0 } : null;
    this.reset();
  }

  private reset(): void {
    this.cells.fill(0);
    this.totalImp.fill(0);
    this.zeros = this.s.n;
    if (this.tree) for (let c = 0; c < this.s.n; c++) this.tree.set(c, this.weight(c));
    this.tree?.rebuild();
    this.heap?.clear();
    this.ver?.fill(0);
    this.priority?.fill(0);
    if (this.s.delete === 'minImpPriority') for (let c = 0; c < this.s.n; c++) this.heap!.push(0, c, 0);
    if (this.cache) {
      this.cache.head = 0;
      this.cache.size = 0;
    }
  }

  clear(): void {
    this.reset();
    this.inserts = 0;
    this.reinsertions = 0;
  }

  /** Uniform in [0, 1) (xorshift32). */
  private rand(): number {
    let x = this.rng;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.rng = x >>> 0;
    return this.rng / 2 ** 32;
  }

  private load(key: number): Int32Array {
    for (let i = 0; i < this.s.k; i++)
      this.idx[i] = Math.floor((fmix32((key ^ this.salts[i]!) >>> 0) * this.s.n) / 2 ** 32);
    return this.idx;
  }

  /** The sampling weight of cell c under the probabilistic deletes. */
  private weight(c: number): number {
    const v = this.cells[c]!;
    switch (this.s.delete) {
      case 'probabilistic':
        return 1 / Math.max(1, this.totalImp[c]!);
      case 'probabilisticP':
        return v > 0 ? 1 / Math.max(1, this.totalImp[c]!) : 0;
      case 'probabilisticVal':
        return v > 0 ? 1 / v : 0;
      default:
        return 0;
    }
  }

  /** Sets cell c's value, keeping the zero count and the deletes' structures current. */
  private setCell(c: number, v: number): void {
    const old = this.cells[c]!;
    if (old === 0 && v !== 0) this.zeros--;
    else if (old !== 0 && v === 0) this.zeros++;
    this.cells[c] = v;
    this.touched(c);
  }

  private touched(c: number): void {
    if (this.tree) {
      this.tree.set(c, this.weight(c));
      if (++this.treeUpdates % (1 << 20) === 0) this.tree.rebuild();
    }
    if (this.s.delete === 'minImp' && this.cells[c]! > 0) this.heap!.push(this.totalImp[c]!, c, ++this.ver![c]!);
  }

  private deleteStep(): void {
    const s = this.s;
    switch (s.delete) {
      case 'none':
        return;
      case 'random':
        for (let i = 0; i < s.p; i++) {
          const c = Math.floor(this.rand() * s.n);
          if (this.cells[c]! > 0) this.setCell(c, this.cells[c]! - 1);
        }
        return;
      case 'probabilistic':
      case 'probabilisticP':
      case 'probabilisticVal': {
        const t = this.tree!;
        for (let i = 0; i < s.p; i++) {
          if (t.total <= 1e-9) return;
          let c = t.find(this.rand() * t.total);
          // Rounding may land on a weightless cell at a range edge: step to a weighted one.
          let tries = 0;
          while (t.w[c] === 0 && tries++ < 64) c = t.find(this.rand() * t.total);
          if (t.w[c] === 0) return;
          if (this.cells[c]! > 0) this.setCell(c, this.cells[c]! - 1);
        }
        return;
      }
      case 'minImp': {
        const h = this.heap!;
        const chosen: number[] = [];
        while (chosen.length < s.p) {
          const e = h.pop();
          if (!e) break;
          const [c, v] = e;
          if (v !== this.ver![c] || this.cells[c] === 0) continue;
          this.ver![c]!++; // the entry is consumed; re-pushed below if still non-zero
          chosen.push(c);
        }
        for (const c of chosen) this.setCell(c, this.cells[c]! - 1);
        return;
      }
      case 'minImpPriority': {
        const h = this.heap!;
        for (let i = 0; i < s.p; i++) {
          let e = h.pop();
          while (e && e[1] !== this.ver![e[0]]) e = h.pop();
          if (!e) return;
          const c = e[0];
          if (this.cells[c]! > 0) {
            this.cells[c]!--;
            if (this.cells[c] === 0) this.zeros++;
          }
          this.priority![c]! += s.M;
          h.push(this.totalImp[c]! + this.priority![c]!, c, ++this.ver![c]!);
        }
        return;
      }
    }
  }

  /** The cell value an item of importance imp writes. */
  valueOf(imp: number): number {
    if (this.s.insert === 'max') return this.s.M;
    return Math.max(1, Math.ceil((imp * this.s.M) / this.s.Z));
  }

  query(key: number): boolean {
    const idx = this.load(key);
    for (let i = 0; i < this.s.k; i++) if (this.cells[idx[i]!] === 0) return false;
    return true;
  }

  private insertOnly(key: number, imp: number): void {
    this.deleteStep();
    const idx = this.load(key);
    const v = this.valueOf(imp);
    for (let i = 0; i < this.s.k; i++) {
      const c = idx[i]!;
      this.totalImp[c]! += imp;
      if (this.s.delete === 'minImpPriority') {
        const old = this.cells[c]!;
        if (old === 0) this.zeros--;
        this.cells[c] = v;
        this.heap!.push(this.totalImp[c]! + this.priority![c]!, c, ++this.ver![c]!);
      } else this.setCell(c, v);
    }
    this.inserts++;
  }

  /** Algorithm 1/2: delete(), then the k cells; then reinsertion (§5.3) if configured. */
  insert(key: number, imp: number): void {
    if (!Number.isInteger(imp) || imp < 1 || imp > this.s.Z)
      throw new RangeError(`importance ${imp} is not in 1..${this.s.Z}`);
    this.insertOnly(key, imp);
    const r = this.s.reinsertion;
    const cache = this.cache;
    if (!r || !cache) return;
    if (imp >= r.threshold) {
      const at = (cache.head + cache.size) % r.capacity;
      cache.keys[at] = key;
      cache.imps[at] = imp;
      if (cache.size < r.capacity) cache.size++;
      else cache.head = (cache.head + 1) % r.capacity;
    }
    const due =
      'periodic' in r.condition ? this.inserts % r.condition.periodic === 0 : this.zeros / this.s.n < r.condition.zeros;
    if (!due || cache.size === 0) return;
    let j: number;
    if (r.strategy === 'fifo') {
      j = cache.head;
      // The oldest moves to the back: the ring turns by one.
      const kk = cache.keys[j]!;
      const ii = cache.imps[j]!;
      cache.head = (cache.head + 1) % r.capacity;
      const at = (cache.head + cache.size - 1) % r.capacity;
      cache.keys[at] = kk;
      cache.imps[at] = ii;
      this.insertOnly(kk, ii);
    } else {
      j = (cache.head + Math.floor(this.rand() * cache.size)) % r.capacity;
      this.insertOnly(cache.keys[j]!, cache.imps[j]!);
    }
    this.reinsertions++;
  }

  /** The answer as of before the insert, then the insert. */
  testAndInsert(key: number, imp: number): boolean {
    const hit = this.query(key);
    this.insert(key, imp);
    return hit;
  }
}
