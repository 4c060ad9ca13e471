/**
 * Pieces most families' stream modules share, so a family's `stream.ts` says only what is its
 * own: the membership ops and their semantics, answering a request from handlers, comparing
 * block RAM words with the model's, keys as 32-bit words and the software filter over them.
 */
import type { MemoryCheck, OpSemantics, SoftwareFilter, SoftwareOp, StreamRequest } from './types.js';

/** What query, insert, test-and-insert and clear do (every membership filter has these four). */
export const MEMBERSHIP_SEMANTICS: Readonly<Record<'query' | 'insert' | 'testAndInsert' | 'clear', OpSemantics>> = {
  query: { queries: true },
  insert: { inserts: true },
  testAndInsert: { queries: true, inserts: true },
  clear: { clears: true },
};

/** The model's side of the membership ops. */
export interface MembershipModel {
  query(key: bigint): boolean;
  insert(key: bigint): unknown;
  testAndInsert(key: bigint): boolean;
  clear(): unknown;
}

/** Handlers for the membership ops on `m` (spread more in for a family's other ops). */
export function membershipHandlers(m: MembershipModel): Record<string, (req: StreamRequest) => boolean | void> {
  return {
    query: (r) => m.query(r.key),
    insert: (r) => void m.insert(r.key),
    testAndInsert: (r) => m.testAndInsert(r.key),
    clear: () => void m.clear(),
  };
}

/**
 * The response `{ hit }` to `req` from the handler of its op (a handler returning nothing
 * answers 0); an op without a handler is an error naming the family.
 */
export function answer(
  family: string,
  handlers: Readonly<Record<string, (req: StreamRequest) => boolean | void>>,
  req: StreamRequest,
): { hit: bigint } {
  const h = handlers[req.op];
  if (!h) throw new Error(`${family}: unknown op '${req.op}'`);
  return { hit: h(req) === true ? 1n : 0n };
}

/** One memory of the design and the model's value of each of its words. */
export interface ExpectedMemory {
  name: string;
  depth: number;
  word(addr: number): bigint;
}

/** Word-by-word comparison of the design's memories with the model's words (the first 10 mismatches named). */
export function compareWords(
  memories: Iterable<ExpectedMemory>,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (const mem of memories) {
    for (let a = 0; a < mem.depth; a++) {
      checked++;
      const hw = read(mem.name, a);
      const sw = mem.word(a);
      if (hw === sw) continue;
      count++;
      if (mismatches.length < 10)
        mismatches.push(`${mem.name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
    }
  }
  return { checked, unit: 'words', mismatches, count };
}

/** Keys as little-endian 32-bit words, ⌈keyBits/32⌉ words each (what a packet parser hands over). */
export function keyWords(keys: readonly bigint[], keyBits: number): Uint32Array {
  const kw = Math.ceil(keyBits / 32);
  const out = new Uint32Array(keys.length * kw);
  keys.forEach((key, i) => {
    let v = key;
    for (let j = 0; j < kw; j++) {
      out[i * kw + j] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
  });
  return out;
}

/** A filter that takes its key as `kw` 32-bit words at `offset` of `words`. */
export type WordsFilter = Partial<Record<SoftwareOp, (words: Uint32Array, offset: number) => unknown>>;

/**
 * The bench's software filter over keys handed over as 32-bit words (converted once per key
 * stream, so the timed loop does no allocation): `make()` gives a new, empty filter.
 */
export function wordsSoftware(
  keyBits: number,
  engine: SoftwareFilter['engine'],
  make: () => WordsFilter,
  keys = 1_000_000,
): SoftwareFilter {
  const kw = Math.ceil(keyBits / 32);
  let cached: { keys: readonly bigint[]; words: Uint32Array } | null = null;
  return {
    engine,
    keys,
    fresh(stream) {
      if (cached?.keys !== stream) cached = { keys: stream, words: keyWords(stream, keyBits) };
      const words = cached.words;
      const f = make();
      const ops: Partial<Record<SoftwareOp, (i: number) => unknown>> = {};
      // Method calls on f (not detached functions): a compiled filter may use `this`.
      if (f.insert) ops.insert = (i) => f.insert!(words, i * kw);
      if (f.query) ops.query = (i) => f.query!(words, i * kw);
      if (f.testAndInsert) ops.testAndInsert = (i) => f.testAndInsert!(words, i * kw);
      return ops;
    },
  };
}
