/**
 * The APBF/APBBF pipeline's protocol constants and its parameters: one source for the manifest's
 * `parameters` and the design's metadata (the header of the generated Verilog).
 */
import type { ApbfDerived } from './types.js';

export const OP = { query: 0, insert: 1, testAndInsert: 2, tick: 3, clear: 4 } as const;
/** Cycles from the accepting edge to out_valid with out_ready high (measured by the tests). */
export const LATENCY = 10;
/** Entries of the response queue: enough for a full pipeline, so a ready consumer never stalls it. */
export const RESPONSE_QUEUE = 16;

export function apbfParameters(c: ApbfDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    k: c.k,
    l: c.l,
    g: c.generation,
    m: c.segmentBits,
    B: c.blockBits,
    b: c.bitsPerBlock,
    w: c.window,
    s: c.slack,
    banks: c.k + c.l + c.spares,
    spares: c.spares,
    wordBits: c.wordBits,
    columnDepth: c.columnDepth,
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

/** The design's metadata: the parameters, the latency and the op codes. */
export function apbfMeta(c: ApbfDerived): Record<string, unknown> {
  return { ...apbfParameters(c), latency: LATENCY, opcodes: OP };
}
