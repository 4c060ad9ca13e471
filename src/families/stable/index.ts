/**
 * The Stable Bloom filter family (Deng & Rafiei, SIGMOD 2006), word-local variant: config
 * `filter` "stable".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { deriveStableSizes, stableSchema } from './config.js';
import { stableExperiments } from './experiments.js';
import { stableLanes } from './lanes.js';
import { stableParameters } from './params.js';
import { stablePlanner } from './planner.js';
import { buildStable } from './rtl.js';
import { sampleStable } from './sampler.js';
import { stableProtocol, stableSoftware, StableStreamModel, stableFromSnapshot } from './stream.js';
import { stableAnalysis } from './summary.js';
import type { StableDerived } from './types.js';

export const stableFamily: FilterFamily<StableDerived> = {
  id: 'stable',
  title: 'Stable Bloom filters (Deng & Rafiei), word-local decrements',
  filters: ['stable'],
  schema: stableSchema,
  derive: deriveStableSizes,
  planner: stablePlanner,
  parameters: stableParameters,
  describe: (c) => `k=${c.k} d=${c.d} cells=${c.cells} P=${c.P} C=${c.cellsPerWord}`,
  build: (c) => buildStable(c),
  protocol: stableProtocol,
  model: (c) => new StableStreamModel(c),
  fromSnapshot: stableFromSnapshot,
  // The control port's aging events: the decrement rounds: inserts, each decrementing P cells (ins_write pulses once per
  // such insert; none when P = 0). No occupancy estimate: see the README.
  control: (c) => (c.P > 0 ? { events: 'ins_write_p1' } : {}),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0005 },
  // False negatives by design (a key is evicted once its cells are decremented to 0): no window,
  // except with P = 0, a partitioned Bloom filter of d-bit cells that never forgets.
  window: (c) => (c.P === 0 ? Infinity : null),
  // A partitioned Bloom filter's half-fill point, (cells · ln 2) keys (what P = 0 is sized for).
  capacity: (c) => Math.max(1, Math.floor(c.cells * Math.LN2)),
  slack: () => 0,
  aging: {
    name: 'decrement rounds',
    // Every insert decrements (P > 0): three quarters of the ops insert.
    run: () => ({ ops: 3000, mix: { query: 1, insert: 2, testAndInsert: 1 }, minEvents: 2000 }),
  },
  analyze: stableAnalysis,
  software: stableSoftware,
  sample: sampleStable,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['stable_d2_k3'],
  experiments: stableExperiments,
  lanes: { kind: 'sharded', ...stableLanes },
};
