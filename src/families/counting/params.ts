/**
 * The counting/spectral pipeline's protocol constants and its parameters: one source for the
 * manifest's `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { COUNTER_MODIFY } from '../../stages/counters.js';
import type { Algorithm, CountingDerived } from './types.js';

/** Op codes (in_op, 3 bits). A config without remove has no op 3: the pipeline answers it as a no-op. */
export const OP = { query: 0, insert: 1, testAndInsert: 2, remove: 3, clear: 4 } as const;

/** The cycle (from the accepting cycle, 0) in which the primary banks present the read address. */
export const READ_CYCLE = 3;
/** The primary banks' modify stage. */
export const MODIFY_CYCLE = READ_CYCLE + COUNTER_MODIFY;
/**
 * RM: the secondary banks' modify stage, three cycles after the primary's: the primary's new
 * counters are compared pairwise (one register stage), then their minimum and whether it is
 * held once (another), before the secondary's update needs them.
 */
export const SECONDARY_MODIFY_CYCLE = MODIFY_CYCLE + 3;

/**
 * The cycle whose values enter the response queue: two stages after the last modify stage (the
 * pairwise compares of the counters, registered; the minimum selected into the queue), one more
 * for RM's rule (the secondary's minimum registered, then the choice between the two).
 */
export function pushCycle(algorithm: Algorithm): number {
  return algorithm === 'rm' ? SECONDARY_MODIFY_CYCLE + 3 : MODIFY_CYCLE + 2;
}

/**
 * Cycles from the accepting edge to out_valid with out_ready high (measured by the tests); one
 * less for a lane shard (`direct`: no response queue, the pushed values are the outputs).
 */
export function latencyOf(algorithm: Algorithm, direct = false): number {
  return pushCycle(algorithm) + (direct ? 0 : 1);
}

/** Response queue entries: room for every request in flight at one per cycle, a power of two. */
export function queueDepthOf(algorithm: Algorithm): number {
  return 2 ** Math.ceil(Math.log2(latencyOf(algorithm) + 3));
}

export function countingParameters(c: CountingDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    algorithm: c.algorithm,
    k: c.k,
    w: c.counterBits,
    cellsPerBank: c.cellsPerBank,
    ...(c.algorithm === 'rm'
      ? { secondaryCellsPerBank: c.secondaryCellsPerBank, secondaryDepth: c.secondaryDepth }
      : {}),
    lanes: c.lanes,
    wordBits: c.wordBits,
    depth: c.depth,
    remove: c.remove,
    items: c.items,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function countingMeta(c: CountingDerived): Record<string, unknown> {
  return { ...countingParameters(c), latency: latencyOf(c.algorithm, c.direct), opcodes: opsOf(c) };
}

/** The op codes this config has (no remove for configs without it). */
export function opsOf(c: { remove: boolean }): Record<string, number> {
  if (c.remove) return { ...OP };
  return { query: OP.query, insert: OP.insert, testAndInsert: OP.testAndInsert, clear: OP.clear };
}
