/**
 * The importance-aware Bloom filter pipeline's protocol constants and its parameters: one source
 * for the manifest's `parameters` and the design's metadata.
 */
import { ibfLayout } from './model.js';
import type { IbfDerived } from './types.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
/** Cycles from the accepting edge to out_valid with out_ready high (measured by the tests). */
export const LATENCY = 9;

/** The pipeline's latency: LATENCY, one less for a lane shard (`direct`: no response queue). */
export function ibfLatency(c: IbfDerived): number {
  return LATENCY - (c.direct ? 1 : 0);
}
/** Entries of the response queue: enough for a full pipeline. */
export const RESPONSE_QUEUE = 16;

export function ibfParameters(c: IbfDerived): Record<string, unknown> {
  const L = ibfLayout(c);
  return {
    filter: c.filter,
    insert: c.insert === 'imp' ? 'Imp-insert (cells take the importance)' : 'M-insert (cells take MAX)',
    delete: 'random, word-local (P_i adjacent cells of the word each insert writes in bank i)',
    k: c.k,
    max: c.max,
    d: c.d,
    cells: c.cells,
    m: c.k * c.cells,
    P: c.P,
    deletesPerBank: L.perBank,
    cellsPerWord: c.cellsPerWord,
    wordBits: c.wordBits,
    depth: c.depth,
    generatorLanes: L.lanes,
    importance: `in_imp, ${c.d} bits; an insert with importance 0 or above ${c.max} is refused: no change, out_bad = 1`,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
  };
}

export function ibfMeta(c: IbfDerived): Record<string, unknown> {
  return { ...ibfParameters(c), latency: ibfLatency(c), opcodes: OP };
}
