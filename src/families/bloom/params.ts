/**
 * The set filters' protocol constants and parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { BloomDerived } from './types.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
/** Entries of the response queue: enough for a full pipeline, so a ready consumer never stalls it. */
export const RESPONSE_QUEUE = 16;

/**
 * Cycles from the accepting edge to out_valid with out_ready high (measured by the conformance
 * tests): 9 for one op per cycle; 8 + k for the basic filter's k micro-ops (see rtl.ts); one less
 * for a lane shard (`direct`: no response queue).
 */
export function latencyOf(c: BloomDerived): number {
  return (c.initiationInterval > 1 ? 8 + c.k : 9) - (c.direct ? 1 : 0);
}

/** Cycles of the reset/clear sweep with in_ready low. */
export function sweepCycles(c: BloomDerived): number {
  return c.columnDepth + CLEAR_DELAY;
}

export function bloomParameters(c: BloomDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    k: c.k,
    m: c.bits,
    ...(c.filter === 'blocked' ? { B: c.blockBits, b: c.k } : {}),
    ...(c.filter === 'partitioned' ? { sliceBits: c.columnBits } : {}),
    n: c.items,
    columns: c.columns,
    wordBits: c.wordBits,
    columnDepth: c.columnDepth,
    initiationInterval: c.initiationInterval,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function bloomMeta(c: BloomDerived): Record<string, unknown> {
  return { ...bloomParameters(c), latency: latencyOf(c), opcodes: OP };
}
