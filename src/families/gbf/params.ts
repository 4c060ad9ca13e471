/**
 * The GBF pipeline's protocol constants and its parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { gbfDecisionLayout } from './decision.js';
import { ROLE_HASH_BITS } from './model.js';
import type { GbfDerived } from './types.js';

export const GBF_OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
export const GBF_RESPONSE_QUEUE = 16;

/** Banks (k0 + k1). */
export function banksOf(c: GbfDerived): number {
  return c.k0 + c.k1;
}

/** Register stages of the match counts: group sums, then one stage per two adder levels. */
export function countStages(c: GbfDerived): number {
  const groups = Math.ceil(banksOf(c) / 4);
  const levels = Math.ceil(Math.log2(Math.max(1, groups)));
  return 1 + Math.max(1, Math.ceil(levels / 2));
}

/**
 * Cycles from the accepting edge to out_valid with out_ready high (measured by the tests); one
 * less for a lane shard (`direct`: no response queue).
 */
export function gbfLatency(c: GbfDerived): number {
  return 7 + countStages(c) + (c.decision ? 3 : 0) - (c.direct ? 1 : 0);
}

export function gbfParameters(c: GbfDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    k0: c.k0,
    k1: c.k1,
    banks: banksOf(c),
    cellsPerBank: c.cellsPerBank,
    m: c.m,
    wordBits: c.wordBits,
    wordsPerBank: c.wordsPerBank,
    window: c.window,
    roles: `ρ = ⌊v·${banksOf(c)}/2^${ROLE_HASH_BITS}⌋ (v: a ${ROLE_HASH_BITS}-bit H3 of the key); bank j resets iff (j − ρ) mod ${banksOf(c)} < ${c.k0}`,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.decision
      ? {
          decision: {
            ...c.decision,
            table: gbfDecisionLayout(c),
            ratio: 'in_ratio = floor($FP/($FP+$FN) · 2^posteriorBits); Pos iff posterior word >= in_ratio',
          },
        }
      : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function gbfMeta(c: GbfDerived): Record<string, unknown> {
  return { ...gbfParameters(c), latency: gbfLatency(c), opcodes: GBF_OP };
}
