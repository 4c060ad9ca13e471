/**
 * The bitwise pipeline's protocol constants and its parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { maxCount } from './model.js';
import type { BitwiseDerived } from './types.js';

/** Op codes: `query` is the manual's count (hit = count > 0). */
export const BITWISE_OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;

/** Register stages of the minimum over a level's k counters: a tree of 2-input minima. */
export function minStages(c: BitwiseDerived): number {
  return Math.ceil(Math.log2(Math.max(...c.levels.map((L) => L.k))));
}

/**
 * Cycles from the accepting edge to out_valid with out_ready high (measured by the tests):
 * input registers, hash pieces, hash, block RAM read, read word, lane and forwarding, update,
 * the counters registered, the minimum tree, the response queue (see rtl.ts).
 */
export function bitwiseLatency(c: BitwiseDerived): number {
  return 8 + minStages(c);
}

/** Entries of the response queue: more than the requests a full pipeline holds. */
export function responseQueueDepth(c: BitwiseDerived): number {
  return bitwiseLatency(c) <= 13 ? 16 : 32;
}

export function bitwiseParameters(c: BitwiseDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    l: c.levels.length,
    levels: c.levels.map((L) => ({
      cells: L.cells,
      width: L.width,
      k: L.k,
      bankCells: L.bankCells,
      lanes: L.lanes,
      wordWidth: L.wordWidth,
      depth: L.depth,
      weight: `2^${L.offset}`,
    })),
    countBits: c.countBits,
    maxCount: maxCount(c.levels).toString(),
    wordBits: c.wordBits,
    items: c.items,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function bitwiseMeta(c: BitwiseDerived): Record<string, unknown> {
  return { ...bitwiseParameters(c), latency: bitwiseLatency(c), opcodes: BITWISE_OP };
}
