/**
 * The A² pipeline's protocol constants and its parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { CLEAR_SKEW } from './config.js';
import type { A2Derived } from './types.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, clear: 3 } as const;
/** Cycles from the accepting edge to out_valid with out_ready high (measured by the tests). */
export const LATENCY = 9;
/** Entries of the response queue: enough for a full pipeline, so a ready consumer never stalls it. */
export const RESPONSE_QUEUE = 16;

export function a2Parameters(c: A2Derived): Record<string, unknown> {
  return {
    filter: c.filter,
    k: c.k,
    kappa: c.kappa,
    bankBits: c.bankBits,
    m: c.bits,
    sets: 3,
    banks: 3 * c.k,
    wordBits: c.wordBits,
    depth: c.depth,
    w: c.window,
    s: c.slack,
    flushCycles: c.depth + CLEAR_DELAY + CLEAR_SKEW,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function a2Meta(c: A2Derived): Record<string, unknown> {
  return { ...a2Parameters(c), latency: LATENCY, opcodes: OP };
}
