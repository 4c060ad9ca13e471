/**
 * The Generalized Bloom Filter family (Dautrich & Ravishankar §5, after Laufer et al.): k0 hashes
 * reset a one-bit cell, k1 set one, in a partitioned layout (one bank per hash), with the optional
 * inferential decision unit (§5.3): config `filter` "gbf".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { deriveGbfSizes, gbfSchema } from './config.js';
import { gbfExperiments } from './experiments.js';
import { gbfLanes } from './lanes.js';
import { gbfParameters } from './params.js';
import { buildGbf } from './rtl.js';
import { sampleGbf } from './sampler.js';
import { gbfProtocol, gbfRequestFields, gbfSoftware, GbfStreamModel, gbfFromSnapshot } from './stream.js';
import { gbfAnalysis } from './summary.js';
import type { GbfDerived } from './types.js';

export const gbfFamily: FilterFamily<GbfDerived> = {
  id: 'gbf',
  title: 'Generalized Bloom filter (reset and set hashes, inferential decision unit)',
  filters: ['gbf'],
  schema: gbfSchema,
  derive: deriveGbfSizes,
  parameters: gbfParameters,
  describe: (c) =>
    `k0=${c.k0} k1=${c.k1} banks=${c.k0 + c.k1}x${c.cellsPerBank} w=${c.window}${c.decision ? ' +decision' : ''}`,
  build: (c) => buildGbf(c),
  protocol: gbfProtocol,
  model: (c) => new GbfStreamModel(c),
  fromSnapshot: gbfFromSnapshot,
  // The control port: no aging events (bits reset by inserts, no step); occupancy: insert requests since the last clear.
  control: () => ({ occupancy: { count: 'inserts' } }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  requestFields: gbfRequestFields,
  // No window: a key of the window is forgotten when a later insert rewrites one of its cells
  // (false negatives by design, §5.2), so there is nothing to promise.
  window: () => null,
  slack: () => 0,
  // Nothing ages by count: a GBF has no generations or timestamps, its memory decays insert by
  // insert, and one op per cycle holds with no background work (tested on a long stream).
  aging: null,
  analyze: gbfAnalysis,
  software: gbfSoftware,
  sample: sampleGbf,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['gbf_k4_c4096'],
  experiments: gbfExperiments,
  lanes: { kind: 'sharded', ...gbfLanes },
};
