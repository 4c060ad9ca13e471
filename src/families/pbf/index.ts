/**
 * Persistent Bloom filters for temporal range membership (Peng et al., SIGMOD 2018): `pbf2`
 * (PBF-2, §4.2: one filter per level of the time decomposition, queries by the canonical cover)
 * and `sbf` (SBF, §3.1: one filter over (key, time) pairs, a query probes every instant of its
 * range) as pipelines; `pbf1` (PBF-1, §4.1) as a model only (experiments pbf-*), refused as a
 * config with the reason.
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { derivePbf, pbfSchema } from './config.js';
import { pbfExperiments } from './experiments.js';
import { pbfParameters } from './params.js';
import { pbfPlanner } from './planner.js';
import { buildPbf } from './rtl.js';
import { samplePbf } from './sampler.js';
import { pbfControl, pbfFromSnapshot } from './snapshot.js';
import { pbfProtocol, pbfRequestFields, pbfSoftware, PbfStreamModel } from './stream.js';
import { pbfAnalysis } from './summary.js';
import type { PbfDerived } from './types.js';

export const pbfFamily: FilterFamily<PbfDerived> = {
  id: 'pbf',
  title: 'Persistent Bloom filters (temporal range membership: SBF, PBF-2; PBF-1 model)',
  filters: ['pbf2', 'sbf', 'pbf1'],
  schema: pbfSchema,
  derive: derivePbf,
  planner: pbfPlanner,
  parameters: pbfParameters,
  describe: (c) =>
    `T=${c.horizon} k=${c.k} ${c.levels.length} level${c.levels.length > 1 ? 's' : ''} of ${[...new Set(c.levels.map((l) => l.sliceBits))].join('/')}-bit slices n=${c.items}`,
  build: (c) => buildPbf(c),
  protocol: pbfProtocol,
  model: (c) => new PbfStreamModel(c),
  // Snapshots into the model, the control port's time steps and `now` (./snapshot.ts).
  fromSnapshot: pbfFromSnapshot,
  control: pbfControl,
  verifyMix: { query: 4, insert: 5, clear: 0.002 },
  requestFields: pbfRequestFields,
  window: () => null,
  // Distinct keys of the verification streams (4x this many): keys recur across time, so queries hit.
  capacity: () => 64,
  slack: () => 0,
  // Time advancing with the inserts is this family's aging: a run of inserts at one per cycle
  // that moves `now` across half the horizon (the conformance's 0-stall check; the bench's mix).
  aging: {
    name: 'time steps',
    run: (c) => ({ ops: 8000, mix: { insert: 1 }, minEvents: Math.floor(c.horizon / 2) }),
  },
  analyze: pbfAnalysis,
  software: pbfSoftware,
  sample: samplePbf,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['pbf2_t1024_k2_4k', 'sbf_t1024_k4_8k'],
  experiments: pbfExperiments,
  // `now` is the whole filter's: a shard sees only its keys' inserts, so its own `now` would accept
  // an insert the one-lane filter refuses (out_err) — the check needs every lane's times.
  lanes: {
    kind: 'one-lane',
    why:
      "an insert whose time is before the last accepted insert's is refused, a check against every lane's " +
      'inserts that a shard, seeing only its own keys, cannot make',
  },
};
