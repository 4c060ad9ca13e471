/**
 * The persistent filters' protocol constants and parameters: one source for the manifest's
 * `parameters` and the design's metadata.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { PbfDerived } from './types.js';

export const OP = { query: 0, insert: 1, clear: 2 } as const;
export const RESPONSE_QUEUE = 16;

/** Cycles from accepting an op whose last micro-op issues at once (an insert, a clear, a one-probe SBF query) to out_valid. */
export const BASE_LATENCY = 12;

/**
 * Micro-ops (probe cycles) of a query: PBF-2 always 2 (the cover's left intervals, one per level,
 * then its right intervals; a refused query too); SBF e − s + 1 (at most T; 1 for a refused query).
 */
export function maxQueryCycles(c: PbfDerived): number {
  return c.filter === 'pbf2' ? 2 : c.horizon;
}

/**
 * The protocol's `latency`: a PBF-2 query's (BASE + 1: its second micro-op issues one cycle after
 * acceptance; an insert's response comes one cycle earlier, BASE); an SBF op of one micro-op (an
 * insert, a query with s = e): BASE, and a query of |q| micro-ops BASE + |q| − 1.
 */
export function latencyOf(c: PbfDerived): number {
  return c.filter === 'pbf2' ? BASE_LATENCY + 1 : BASE_LATENCY;
}

/** Words of the deepest slice (the sweep's length). */
export function maxDepth(c: PbfDerived): number {
  return Math.max(...c.levels.map((l) => l.sliceBits / c.wordBits));
}

export function sweepCycles(c: PbfDerived): number {
  return maxDepth(c) + CLEAR_DELAY;
}

export function pbfParameters(c: PbfDerived): Record<string, unknown> {
  return {
    filter: c.filter,
    horizon: c.horizon,
    timeBits: c.timeBits,
    k: c.k,
    levels: c.levels.map((l) => ({ height: l.height, sliceBits: l.sliceBits })),
    bits: c.levels.reduce((s, l) => s + l.k * l.sliceBits, 0),
    n: c.items,
    queryLength: c.queryLength,
    wordBits: c.wordBits,
    initiationInterval: 1,
    maxQueryCycles: maxQueryCycles(c),
    keyBits: c.keyBits,
    tagBits: c.tagBits,
    seed: c.seed,
    target: c.target,
    ...(c.planned ? { planned: c.planned } : {}),
  };
}

export function pbfMeta(c: PbfDerived): Record<string, unknown> {
  return { ...pbfParameters(c), latency: latencyOf(c), opcodes: OP };
}
