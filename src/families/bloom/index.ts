/**
 * The classic set filters (config `filter` "basic", "partitioned" or "blocked"): the basic Bloom
 * filter of the libBf manual, the partitioned filter of the APBF paper's §4, and the blocked
 * filter (one block of B bits per key, b bits set in it).
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { bloomSchema, deriveBloomSizes } from './config.js';
import { bloomExperiments } from './experiments.js';
import { bloomLanes } from './lanes.js';
import { bloomParameters } from './params.js';
import { bloomPlanner } from './planner.js';
import { buildBloom } from './rtl.js';
import { sampleBloom } from './sampler.js';
import { bloomProtocol, bloomSoftware, BloomStreamModel, bloomFromSnapshot } from './stream.js';
import { bloomAnalysis } from './summary.js';
import { table1 } from './tables.js';
import type { BloomDerived } from './types.js';

export const bloomFamily: FilterFamily<BloomDerived> = {
  id: 'bloom',
  title: 'Classic set filters (basic, partitioned and blocked Bloom filters)',
  filters: ['basic', 'partitioned', 'blocked'],
  schema: bloomSchema,
  derive: deriveBloomSizes,
  planner: bloomPlanner,
  parameters: bloomParameters,
  describe: (c) =>
    c.filter === 'blocked'
      ? `B=${c.blockBits} b=${c.k} m=${c.bits} n=${c.items}`
      : `k=${c.k} m=${c.bits} n=${c.items}${c.initiationInterval > 1 ? ` II=${c.initiationInterval}` : ''}`,
  build: (c) => buildBloom(c),
  protocol: bloomProtocol,
  model: (c) => new BloomStreamModel(c),
  fromSnapshot: bloomFromSnapshot,
  // The control port: no aging events (a set filter); occupancy: inserts since the last clear (the port's count).
  control: () => ({ occupancy: { count: 'inserts' } }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  window: () => Infinity,
  capacity: (c) => c.items,
  slack: () => 0,
  aging: null,
  analyze: bloomAnalysis,
  software: bloomSoftware,
  sample: sampleBloom,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['bloom_basic_k4_16k', 'bloom_partitioned_k4_4k', 'bloom_blocked_b512_4_16k'],
  experiments: bloomExperiments,
  lanes: { kind: 'sharded', ...bloomLanes },
  tables: [{ name: 'bloom', description: 'Table 1 of the APBF paper (Bloom filters at fill 1/2)', compute: table1 }],
};
