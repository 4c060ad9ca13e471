/**
 * Counting and spectral Bloom filters (libBf manual, "Multisets": Counting, Spectral; Cohen &
 * Matias, "Spectral Bloom Filters", SIGMOD 2003): config `filter` "counting" (minimum selection)
 * or "spectral" with `algorithm` "ms", "mi" (minimum increase) or "rm" (recurring minimum).
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { countingSchema, deriveCountingSizes } from './config.js';
import { countingExperiments } from './experiments.js';
import { countingLanes } from './lanes.js';
import { countingParameters } from './params.js';
import { countingPlanner } from './planner.js';
import { buildCounting } from './rtl.js';
import { sampleCounting } from './sampler.js';
import { countingProtocol, countingSoftware, CountingStreamModel, countingFromSnapshot } from './stream.js';
import { countingAnalysis } from './summary.js';
import type { CountingDerived } from './types.js';

export const countingFamily: FilterFamily<CountingDerived> = {
  id: 'counting',
  title: 'Counting and spectral Bloom filters (MS, MI, RM)',
  filters: ['counting', 'spectral'],
  schema: countingSchema,
  derive: deriveCountingSizes,
  planner: countingPlanner,
  parameters: countingParameters,
  describe: (c) =>
    `${c.algorithm} k=${c.k} w=${c.counterBits} c=${c.cellsPerBank}` +
    (c.algorithm === 'rm' ? `+${c.secondaryCellsPerBank}` : '') +
    ` ${c.lanes}/word${c.remove ? ' +remove' : ''}`,
  build: (c) => buildCounting(c),
  protocol: countingProtocol,
  model: (c) => new CountingStreamModel(c),
  fromSnapshot: countingFromSnapshot,
  // The control port: no aging events; occupancy: inserts − removes since the last clear (the port's count).
  control: () => ({ occupancy: { count: 'inserts' } }),
  // No remove: the mix is one constant for the family, and MI configs have no remove op. Remove
  // is verified three ways by test/families/counting/verify.slow.test.ts (and the pipeline tests)
  // on every preset that has it; `bloomforge verify` has no option for another mix.
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  // With a remove op nothing is promised: removing a false positive decrements another key's
  // counters (the manual: "As soon we allow for deletions we introduce false negative errors").
  // Without one, counters never decrease (a saturated counter stays saturated), so every key
  // inserted since the last clear is found.
  window: (c) => (c.remove ? null : Infinity),
  capacity: (c) => c.items,
  slack: () => 0,
  aging: null,
  analyze: countingAnalysis,
  software: countingSoftware,
  sample: sampleCounting,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['counting_k4_w4'],
  experiments: countingExperiments,
  lanes: { kind: 'sharded', ...countingLanes },
};
