/**
 * The A² (active-active buffering) Bloom filter family: Yoon, "Aging Bloom Filter with Two
 * Active Buffers for Dynamic Sets" (IEEE TKDE 2010), as the libBf manual describes it (section
 * "Aging" → "A²"). Config `filter` "a2".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { a2Schema, deriveA2Sizes } from './config.js';
import { a2Experiments } from './experiments.js';
import { a2Parameters } from './params.js';
import { a2Planner } from './planner.js';
import { buildA2 } from './rtl.js';
import { sampleA2 } from './sampler.js';
import { a2FromSnapshot, a2Protocol, a2Software, A2StreamModel } from './stream.js';
import { a2Analysis } from './summary.js';
import type { A2Derived } from './types.js';

export const a2Family: FilterFamily<A2Derived> = {
  id: 'a2',
  title: 'A² Bloom filter (active-active buffering, Yoon 2010)',
  filters: ['a2'],
  schema: a2Schema,
  derive: deriveA2Sizes,
  planner: a2Planner,
  parameters: a2Parameters,
  describe: (c) => `k=${c.k} kappa=${c.kappa} bankBits=${c.bankBits} W=${c.wordBits}`,
  build: (c) => buildA2(c),
  protocol: a2Protocol,
  model: (c) => new A2StreamModel(c),
  fromSnapshot: a2FromSnapshot,
  // The control port's aging events (swaps: swap_q pulses the cycle after one) and occupancy
  // estimate (real inserts into the active half since the last swap, 0..κ−1).
  control: () => ({ events: 'swap_q', occupancy: 'count' }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  window: (c) => c.window,
  slack: (c) => c.slack,
  aging: {
    name: 'swaps',
    // Inserts of fresh keys (a uniform stream over 4κ keys repeats some; half the ops insert,
    // a quarter test-and-insert): enough real inserts for 11 swaps.
    run: (c) => ({
      ops: Math.ceil(11 * c.kappa * 2.2) + 200,
      mix: { query: 1, insert: 2, testAndInsert: 1 },
      minEvents: 10,
    }),
  },
  analyze: a2Analysis,
  software: a2Software,
  sample: sampleA2,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['a2_k3_b512', 'a2_k8_b2048', 'a2_k10_b4096'],
  experiments: a2Experiments,
  // Sharding would split the count that ages the filter: only the key's shard knows, deep in its
  // pipeline, whether an insert is a real one (its key not in the active half), and the swap must
  // fall at one place in the linear order of every lane's ops.
  lanes: {
    kind: 'one-lane',
    why:
      "its halves swap after kappa inserts of keys not already in the active half, and only the key's shard " +
      'knows, cycles later, whether an insert counts; a count over every shard could not place the swap among ' +
      "the lanes' ops without stalling every lane on each insert",
  },
};
