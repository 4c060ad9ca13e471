/**
 * The word-local cell bank the Stable Bloom filter (src/families/stable) and the importance-aware
 * Bloom filter (src/families/ibf) both build, as the models see it: the layout, the generator
 * lanes, the reference model's cell arrays and the compiled software engine. The families add
 * what differs: the value an insert writes (Max for the SBF; the importance or MAX for the IBF)
 * and the IBF's refusal of a bad importance. The RTL of the same bank is src/stages/cellWord.ts,
 * cellBanks.ts and decrementLanes.ts.
 *
 * - partitioned: hash i (H3 keyed by the config seed, salt `salt(i)`) picks cell h_i(x) of bank
 *   i, a bank of `cells` cells of d bits.
 * - a bank is a block RAM of words of C = `cellsPerWord` cells; cell c is bits
 *   [(c mod C)·d, (c mod C)·d + d) of word ⌊c / C⌋.
 * - word-local decrements: an insert decrements P_i cells of the word it writes in bank i (a cell
 *   at 0 stays 0), P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0) (so Σ P_i = P), namely the cyclically
 *   adjacent cells r_i, r_i + 1, …, r_i + P_i − 1 (mod C), r_i from the generator; then it sets
 *   its cell to the insert's value (the set wins over a decrement of the same cell).
 * - the generator: `lanes` xorshift32 generators (Marsaglia, "Xorshift RNGs", J. Stat. Softw.
 *   8(14), 2003: x ^= x << 13; x ^= x >> 17; x ^= x << 5), each seeded from the config seed and
 *   a family constant (`xorshiftLaneSeeds`); bank i reads its log2(C) bits r_i at bit
 *   (i mod perLane)·log2(C) of lane ⌊i / perLane⌋, perLane = ⌊32 / log2 C⌋. Every insert uses the
 *   current states and then steps every lane once; clear restores the seeds. Queries do not step
 *   it.
 */
import { maxBramWidth, type Target } from '../device/index.js';
import { h3Matrix, h3Tables, splitMix64 } from '../ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from './jsgen.js';

/** The numbers of a word-local cell bank a family's params carry. */
export interface WordCellBankParams {
  k: number;
  /** Cells per bank (a power of two). */
  cells: number;
  /** Cells per word C (a power of two). */
  cellsPerWord: number;
  /** Bits per cell. */
  d: number;
  /** Decrements per insert over all banks. */
  P: number;
  seed: number;
  keyBits: number;
}

/** Derived layout numbers shared by the model, the compiled filter and the RTL generator. */
export interface WordCellLayout {
  /** log2(cellsPerWord): bits of a cell's offset in its word, and of each bank's r_i. */
  offsetBits: number;
  /** log2(words per bank). */
  addrBits: number;
  /** log2(cells): bits of one bank's hash. */
  hashBits: number;
  /** Decrements in bank i, P_i. */
  perBank: number[];
  /** Banks served by one 32-bit generator lane. */
  perLane: number;
  /** Generator lanes (0 when a word holds one cell: no random bits needed). */
  lanes: number;
  wordBits: number;
  depth: number;
}

/** Cells per word at most (the default never exceeds it; an explicit value may not either). */
export const MAX_CELLS_PER_WORD = 32;
/** A word may span this many block RAMs side by side (read and written together). */
export const MAX_WORD_BRAMS = 4;

/**
 * Cells per word: `given`, or by default the most cells of d bits (up to MAX_CELLS_PER_WORD) that
 * fit one block RAM word of the target and leave a bank two words or more. Fails (naming the
 * field) when a bank has fewer than two cells, a word is wider than MAX_WORD_BRAMS block RAM
 * words, or a bank would have fewer than two words.
 */
export function wordCellsPerWord(
  o: { d: number; cells: number; given: number | undefined; target: Target },
  fail: (field: string, message: string) => never,
): number {
  const { d, cells, target } = o;
  const maxWord = maxBramWidth(target);
  if (cells < 2) fail('cells', 'must be at least 2 (a bank of two words or more)');
  let C = o.given ?? 1;
  if (o.given === undefined) while (C * 2 * d <= maxWord && C * 2 <= MAX_CELLS_PER_WORD && C * 2 <= cells / 2) C *= 2;
  if (C * d > MAX_WORD_BRAMS * maxWord)
    fail(
      'cellsPerWord',
      `${C} cells of ${d} bits (${C * d} bits) are wider than ${MAX_WORD_BRAMS} ${target} block RAM words side by side (${MAX_WORD_BRAMS * maxWord} bits)`,
    );
  if (C > cells / 2) fail('cellsPerWord', `must be at most cells/2 = ${cells / 2} (a bank of two words or more)`);
  return C;
}

export function log2Exact(x: number, what: string): number {
  const e = Math.log2(x);
  if (!Number.isInteger(e)) throw new RangeError(`${what} must be a power of two, got ${x}`);
  return e;
}

/** P_i = ⌊P/k⌋ + (i < P mod k ? 1 : 0). */
export function decrementsPerBank(P: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => Math.floor(P / k) + (i < P % k ? 1 : 0));
}

export function wordCellLayout(p: WordCellBankParams): WordCellLayout {
  const offsetBits = log2Exact(p.cellsPerWord, 'cellsPerWord');
  const hashBits = log2Exact(p.cells, 'cells');
  const perLane = offsetBits === 0 ? p.k : Math.floor(32 / offsetBits);
  return {
    offsetBits,
    addrBits: hashBits - offsetBits,
    hashBits,
    perBank: decrementsPerBank(p.P, p.k),
    perLane,
    lanes: offsetBits === 0 ? 0 : Math.ceil(p.k / perLane),
    wordBits: p.cellsPerWord * p.d,
    depth: p.cells / p.cellsPerWord,
  };
}

/** One step of xorshift32 (the triple 13, 17, 5). */
export function xorshift32(x: number): number {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return x >>> 0;
}

/**
 * The seed of generator lane `lane`: SplitMix64 of (seed << 32) ^ `family` ^ lane, low 32 bits,
 * never 0. `family` keeps two families' generators of one seed apart.
 */
export function xorshiftLaneSeeds(seed: number, lanes: number, family: bigint): number[] {
  return Array.from({ length: lanes }, (_, lane) => {
    const v = Number(splitMix64((BigInt(seed) << 32n) ^ family ^ BigInt(lane)).next() & 0xffffffffn);
    return v === 0 ? 1 : v;
  });
}

/** r_i: bank i's offset bits from the lane states. */
export function laneOffset(L: WordCellLayout, states: ArrayLike<number>, bank: number): number {
  if (L.offsetBits === 0) return 0;
  const lane = Math.floor(bank / L.perLane);
  const shift = (bank % L.perLane) * L.offsetBits;
  return (states[lane]! >>> shift) & ((1 << L.offsetBits) - 1);
}

/** The word mask (bit j: cell j of the word) of the Pi cyclically adjacent cells from r in a word of C cells. */
export function adjacentMask(r: number, Pi: number, C: number): number {
  let mask = 0;
  for (let t = 0; t < Pi; t++) mask |= 1 << ((r + t) % C);
  return mask >>> 0;
}

/**
 * The reference model's banks: cells[bank][c] (0..2^d − 1), the generator lanes, H3 indexes, and
 * the insert at an index set writing a given value. A family's model extends it with its own
 * insert operations (the value it writes, what it refuses) and names for the counters.
 */
export class WordCellBank<L extends WordCellLayout = WordCellLayout> {
  /** cells[bank][c]: the cell's value. */
  readonly cells: Uint16Array[];
  /** The generator lanes' current states. */
  readonly lanes: Uint32Array;
  /** Inserts since creation or clear. */
  inserted = 0;
  /** Inserts that decremented (P > 0): the aging steps. */
  agingRounds = 0;
  private readonly seeds: readonly number[];
  private readonly tables: Uint32Array[];
  private readonly keyBytes: number;
  private readonly idx: Int32Array;

  constructor(
    readonly p: WordCellBankParams,
    readonly layout: L,
    seeds: readonly number[],
    salt: (bank: number) => number,
  ) {
    this.cells = Array.from({ length: p.k }, () => new Uint16Array(p.cells));
    this.seeds = seeds;
    this.lanes = Uint32Array.from(seeds);
    this.tables = Array.from({ length: p.k }, (_, i) =>
      h3Tables(h3Matrix(p.seed, salt(i), p.keyBits, layout.hashBits), p.keyBits),
    );
    this.keyBytes = Math.ceil(p.keyBits / 8);
    this.idx = new Int32Array(p.k);
  }

  /** Bank i's cell index of `key` (its H3 hash). */
  index(key: bigint, bank: number): number {
    const t = this.tables[bank]!;
    let h = 0;
    let v = key;
    for (let i = 0; i < this.keyBytes; i++) {
      h ^= t[i * 256 + Number(v & 0xffn)]!;
      v >>= 8n;
    }
    return h >>> 0;
  }

  /** Every bank's index of `key` (a buffer reused by the next call). */
  load(key: bigint): Int32Array {
    for (let i = 0; i < this.p.k; i++) this.idx[i] = this.index(key, i);
    return this.idx;
  }

  /** All k cells of the indexes non-zero. */
  test(idx: Int32Array): boolean {
    for (let i = 0; i < this.p.k; i++) if (this.cells[i]![idx[i]!] === 0) return false;
    return true;
  }

  /** The insert at the indexes: each bank's P_i decrements in the word, its cell set to `value`, the lanes stepped, counted. */
  apply(idx: Int32Array, value: number): void {
    const L = this.layout;
    const C = this.p.cellsPerWord;
    for (let i = 0; i < this.p.k; i++) {
      const cells = this.cells[i]!;
      const c = idx[i]!;
      const base = c - (c & (C - 1));
      const Pi = L.perBank[i]!;
      const r = laneOffset(L, this.lanes, i);
      for (let t = 0; t < Pi; t++) {
        const j = base + ((r + t) & (C - 1));
        if (cells[j]! > 0) cells[j]!--;
      }
      cells[c] = value;
    }
    for (let lane = 0; lane < L.lanes; lane++) this.lanes[lane] = xorshift32(this.lanes[lane]!);
    this.inserted++;
    if (this.p.P > 0) this.agingRounds++;
  }

  query(key: bigint): boolean {
    return this.test(this.load(key));
  }

  /** Inserts `key` writing `value`. */
  protected insertValue(key: bigint, value: number): void {
    this.apply(this.load(key), value);
  }

  /** The answer as of before the insert, then the insert of `key` writing `value`. */
  protected testAndInsertValue(key: bigint, value: number): boolean {
    const idx = this.load(key);
    const hit = this.test(idx);
    this.apply(idx, value);
    return hit;
  }

  /** Every cell to 0, the lanes to their seeds, the counters to 0. */
  clear(): void {
    for (const c of this.cells) c.fill(0);
    this.lanes.set(this.seeds);
    this.inserted = 0;
    this.agingRounds = 0;
  }

  /** Word `addr` of bank `bank` as the block RAM holds it. */
  word(bank: number, addr: number): bigint {
    const C = this.p.cellsPerWord;
    const cells = this.cells[bank]!;
    let w = 0n;
    for (let j = C - 1; j >= 0; j--) w = (w << BigInt(this.p.d)) | BigInt(cells[addr * C + j]!);
    return w;
  }

  /** Every bank's expected block RAM contents, bank i's memory named `name(i)`. */
  memories(name: (bank: number) => string): { name: string; depth: number; word: (addr: number) => bigint }[] {
    const depth = this.p.cells / this.p.cellsPerWord;
    return this.cells.map((_, bank) => ({ name: name(bank), depth, word: (a: number) => this.word(bank, a) }));
  }

  /**
   * Loads the banks from block RAM words (cell j of a word in bits [j·d, j·d + d)) and the lanes
   * from their registers: the state of a drained pipeline.
   */
  restore(word: (bank: number, addr: number) => bigint, lane: (lane: number) => bigint): void {
    const C = this.p.cellsPerWord;
    const mask = (1n << BigInt(this.p.d)) - 1n;
    for (let bank = 0; bank < this.p.k; bank++)
      for (let a = 0; a < this.p.cells / C; a++) {
        const w = word(bank, a);
        for (let j = 0; j < C; j++) this.cells[bank]![a * C + j] = Number((w >> BigInt(j * this.p.d)) & mask);
      }
    for (let l = 0; l < this.lanes.length; l++) this.lanes[l] = Number(lane(l));
  }

  /** Fraction of cells at 0 over the whole filter. */
  zeroFraction(): number {
    let z = 0;
    for (const c of this.cells) for (let j = 0; j < c.length; j++) if (c[j] === 0) z++;
    return z / (this.p.k * this.p.cells);
  }

  /** Fraction of cells at 0 in each bank. */
  bankZeroFractions(): number[] {
    return this.cells.map((c) => {
      let z = 0;
      for (let j = 0; j < c.length; j++) if (c[j] === 0) z++;
      return z / c.length;
    });
  }
}

/** The compiled banks' operations: keys as little-endian 32-bit words at keys[off..]. */
export interface CompiledWordCellBank {
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  clear(): void;
  /** Every bank's cells, bank i at [i·cells, (i+1)·cells). */
  readonly cells: Uint16Array;
  readonly lanes: Uint32Array;
  /** The value inserts write, when not a constant: set val[0] before an insert. */
  readonly val: Uint16Array;
}

/**
 * The banks' operations generated as JavaScript specialised to one config — every size a
 * literal, the H3 byte tables of the k banks combined into one table (one pass over the key
 * bytes yields every bank's cell index), the P_i decrements of each bank unrolled, cells in one
 * typed array, the generator lanes in a Uint32Array. No allocation per op. An insert writes
 * `value` (a constant), or val[0] when `value` is null.
 */
export function compileWordCellBank(
  p: WordCellBankParams,
  seedList: readonly number[],
  salt: (bank: number) => number,
  value: number | null,
): CompiledWordCellBank {
  const L = wordCellLayout(p);
  const k = p.k;
  const C = p.cellsPerWord;
  const H = packedH3(
    Array.from({ length: k }, (_, b) => ({ name: `h${b}`, rows: h3Matrix(p.seed, salt(b), p.keyBits, L.hashBits) })),
    p.keyBits,
  );
  const cells = new Uint16Array(k * p.cells);
  const seeds = Uint32Array.from(seedList);
  const lanes = Uint32Array.from(seeds);
  const val = new Uint16Array(1);
  const { e, take } = codeBuffer();
  const testCode = (): void => {
    const tests = Array.from({ length: k }, (_, b) => `cells[${b * p.cells} + h${b}] !== 0`);
    e(`const hit = ${tests.join(' && ')};`);
  };
  const insertCode = (): void => {
    if (value === null) e('const v = val[0];');
    const v = value === null ? 'v' : String(value);
    for (let b = 0; b < k; b++) {
      const Pi = L.perBank[b]!;
      const base = b * p.cells;
      if (Pi > 0) {
        e(`{ const w = ${base} + (h${b} & ${~(C - 1) >>> 0});`);
        if (L.offsetBits > 0 && Pi < C) {
          const lane = Math.floor(b / L.perLane);
          const shift = (b % L.perLane) * L.offsetBits;
          e(`  const r = lanes[${lane}] >>> ${shift};`);
          for (let t = 0; t < Pi; t++)
            e(`  { const j = w + ((r + ${t}) & ${C - 1}); if (cells[j] !== 0) cells[j]--; }`);
        } else {
          for (let t = 0; t < Pi; t++) e(`  if (cells[w + ${t}] !== 0) cells[w + ${t}]--;`);
        }
        e('}');
      }
      e(`cells[${base} + h${b}] = ${v};`);
    }
    for (let l = 0; l < L.lanes; l++)
      e(`{ let x = lanes[${l}]; x ^= x << 13; x ^= x >>> 17; x ^= x << 5; lanes[${l}] = x; }`);
  };
  const ops = compileKeyOps(
    { cells, lanes, val, comb: H.table },
    {
      testAndInsert: [
        ...H.code(),
        ...take(() => {
          testCode();
          insertCode();
          e('return hit;');
        }),
      ],
      query: [
        ...H.code(),
        ...take(() => {
          testCode();
          e('return hit;');
        }),
      ],
      insert: [...H.code(), ...take(insertCode)],
    },
  );
  return {
    testAndInsert: ops.testAndInsert as (keys: Uint32Array, off: number) => boolean,
    query: ops.query as (keys: Uint32Array, off: number) => boolean,
    insert: ops.insert as (keys: Uint32Array, off: number) => void,
    clear: () => {
      cells.fill(0);
      lanes.set(seeds);
    },
    cells,
    lanes,
    val,
  };
}
