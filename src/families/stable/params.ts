/**
 * The Stable Bloom filter pipeline's protocol constants and its parameters: one source for the
 * manifest's `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { stableLayout } from './model.js';
import type { StableDerived } from './types.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
/** Cycles from the accepting edge to out_valid with out_ready high (measured by the tests). */
export const LATENCY = 9;

/** The pipeline's latency: LATENCY, one less for a lane shard (`direct`: no response queue). */
export function stableLatency(c: StableDerived): number {
  return LATENCY - (c.direct ? 1 : 0);
}
/** Entries of the response queue: enough for a full pipeline, so a ready consumer never stalls it. */
export const RESPONSE_QUEUE = 16;

export function stableParameters(c: StableDerived): Record<string, unknown> {
  const L = stableLayout(c);
  return {
    filter: c.filter,
    k: c.k,
    d: c.d,
    max: L.max,
    cells: c.cells,
    m: c.k * c.cells,
    P: c.P,
    decrementsPerBank: L.perBank,
    cellsPerWord: c.cellsPerWord,
    wordBits: c.wordBits,
    depth: c.depth,
    generatorLanes: L.lanes,
    variant: 'word-local decrements (P_i adjacent cells of the word each insert writes in bank i)',
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function stableMeta(c: StableDerived): Record<string, unknown> {
  return { ...stableParameters(c), latency: stableLatency(c), opcodes: OP };
}
