/**
 * The Age-Partitioned Bloom Filter family (Shtul, Baquero, Almeida §5) and its blocked variant
 * APBBF (§6): config `filter` "apbf" or "apbbf".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { deriveApbfSizes, apbfSchema } from './config.js';
import { apbfExperiments } from './experiments.js';
import { apbfLanes } from './lanes.js';
import { apbfParameters } from './params.js';
import { apbfPlanner } from './planner.js';
import { buildApbf } from './rtl.js';
import { sampleApbf } from './sampler.js';
import { apbfFromSnapshot, apbfProtocol, apbfSoftware, ApbfStreamModel } from './stream.js';
import { apbfAnalysis } from './summary.js';
import { table2, table3, table4 } from './tables.js';
import type { ApbfDerived } from './types.js';

export const apbfFamily: FilterFamily<ApbfDerived> = {
  id: 'apbf',
  title: 'Age-Partitioned Bloom filters (APBF, blocked APBBF)',
  filters: ['apbf', 'apbbf'],
  schema: apbfSchema,
  derive: deriveApbfSizes,
  planner: apbfPlanner,
  parameters: apbfParameters,
  describe: (c) => `k=${c.k} l=${c.l} m=${c.segmentBits} g=${c.generation}`,
  build: (c) => buildApbf(c),
  protocol: apbfProtocol,
  model: (c) => new ApbfStreamModel(c),
  fromSnapshot: apbfFromSnapshot,
  // The control port's aging events (shifts) and occupancy estimate (inserts into the newest generation, 0..g).
  control: () => ({ events: 'shift_q_p1', occupancy: 'gen_count' }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, tick: 0.004, clear: 0.0002 },
  window: (c) => c.window,
  slack: (c) => c.slack,
  aging: {
    name: 'shifts',
    // Three quarters of the ops insert: enough of them for 11 generations.
    run: (c) => ({
      ops: Math.ceil((11 * c.generation * 4) / 3) + 200,
      mix: { query: 1, insert: 2, testAndInsert: 1 },
      minEvents: 10,
    }),
  },
  analyze: apbfAnalysis,
  software: apbfSoftware,
  sample: sampleApbf,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  demoPreset: 'apbbf_k2_l3_b512_4',
  benchPresets: ['apbf_k4_l3', 'apbbf_k2_l5_b512_4'],
  experiments: apbfExperiments,
  lanes: { kind: 'sharded', ...apbfLanes },
  tables: [
    { name: 'apbf', description: 'Table 2 of the APBF paper (APBF fp, accesses, NPWS, efficiency)', compute: table2 },
    { name: 'apbbf', description: 'Table 3 (APBBF: capacity and fp per block shape)', compute: table3 },
    { name: 'swamp', description: 'Table 4 (APBF vs SWAMP)', compute: table4 },
  ],
};
