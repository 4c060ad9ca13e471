/**
 * The TBF/BTBF pipeline's protocol constants and its parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { bitsFor } from '../../stages/common.js';
import { decisionLayout } from './decision.js';
import type { TbfDerived } from './types.js';

export const TBF_OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
export const TBF_RESPONSE_QUEUE = 16;

/** Cycles from the accepting edge to out_valid with out_ready high (measured by the tests). */
export function tbfLatency(c: TbfDerived): number {
  // A lanes shard answers from the last stage, the cycle before the response queue would.
  return (c.decision ? 11 : 10) - (c.laneTime ? 1 : 0);
}

/** Width of out_lambda; the all-ones value means expired. */
export function lambdaBits(c: TbfDerived): number {
  return bitsFor(c.markAge);
}

export function tbfParameters(c: TbfDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    k: c.k,
    timersPerBank: c.timersPerBank,
    timerBits: c.timerBits,
    window: c.window,
    blockSize: c.blockSize,
    padding: c.padding,
    timersPerWord: c.timersPerWord,
    wordsPerBank: c.wordsPerBank,
    tOmega: c.tOmega,
    tEpsilon: c.tEps,
    markAge: c.markAge,
    scanBound: c.laneTime
      ? `wordsPerBank·shards + lanes − 1 = ${c.wordsPerBank * c.laneTime.shards + c.laneTime.lanes - 1} <= B·(P+1) = ${c.blockSize * (c.padding + 1)}`
      : `wordsPerBank ${c.wordsPerBank} <= B·(P+1) = ${c.blockSize * (c.padding + 1)}`,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    lambdaBits: lambdaBits(c),
    ...(c.planned ? { planned: c.planned } : {}),
    ...(c.decision
      ? {
          decision: {
            ...c.decision,
            table: decisionLayout(c),
            ratio: 'in_ratio = floor($FP/($FP+$FN) · 2^posteriorBits); Pos iff posterior word >= in_ratio',
          },
        }
      : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function tbfMeta(c: TbfDerived): Record<string, unknown> {
  return { ...tbfParameters(c), latency: tbfLatency(c), opcodes: TBF_OP };
}
