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
 * The cycle (from the accepting cycle A = 0) whose values enter the response queue: input
 * registers, hash pieces, hash, block RAM read, read word, lane and forwarding, update, the
 * counters registered, the minimum tree (see rtl.ts).
 */
export function pushStage(c: BitwiseDerived): number {
  return 7 + minStages(c);
}

/**
 * Cycles from the accepting edge to out_valid with out_ready high (measured by the tests): the
 * push stage and the response queue; one less for a lane shard (`direct`: no queue, the values
 * the last stage forms are the outputs).
 */
export function bitwiseLatency(c: BitwiseDerived): number {
  return pushStage(c) + (c.direct ? 0 : 1);
}

/** Entries of the response queue: more than the requests a full pipeline holds. */
export function responseQueueDepth(c: BitwiseDerived): number {
  // The queued pipeline's latency, whatever `direct` says (a direct shard has no queue).
  return pushStage(c) + 1 <= 13 ? 16 : 32;
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
