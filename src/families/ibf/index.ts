/**
 * The importance-aware Bloom filter family (Boraskar, §5): config `filter` "ibf". The pipeline
 * builds Imp-insert or M-insert with word-local Random-delete; every scheme of §5 (the
 * importance-aware deletes, reinsertion, the heuristics of Table 1) is a model (./schemes.ts)
 * run by the `ibf-*` experiments. On N lanes over S shards: ./lanes.ts.
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { deriveIbfSizes, ibfSchema } from './config.js';
import { ibfExperiments } from './experiments.js';
import { ibfLanes } from './lanes.js';
import { ibfParameters } from './params.js';
import { buildIbf } from './rtl.js';
import { sampleIbf } from './sampler.js';
import { ibfProtocol, ibfRequestFields, ibfSoftware, IbfStreamModel, ibfFromSnapshot } from './stream.js';
import { ibfAnalysis } from './summary.js';
import type { IbfDerived } from './types.js';

export const ibfFamily: FilterFamily<IbfDerived> = {
  id: 'ibf',
  title: 'Importance-aware Bloom filters (Boraskar): Imp-/M-insert with word-local random delete',
  filters: ['ibf'],
  schema: ibfSchema,
  derive: deriveIbfSizes,
  parameters: ibfParameters,
  describe: (c) =>
    `${c.insert === 'imp' ? 'Imp' : 'M'}-insert k=${c.k} MAX=${c.max} cells=${c.cells} P=${c.P} C=${c.cellsPerWord}`,
  build: (c) => buildIbf(c),
  protocol: ibfProtocol,
  model: (c) => new IbfStreamModel(c),
  fromSnapshot: ibfFromSnapshot,
  // The control port's aging events: the delete rounds: accepted inserts, each decrementing P cells (ins_write pulses once per
  // such insert; none when P = 0). No occupancy estimate: see the README.
  control: (c) => (c.P > 0 ? { events: 'ins_write_p1' } : {}),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0005 },
  requestFields: ibfRequestFields,
  // False negatives by design (a key is forgotten once a delete takes a cell to 0); and an
  // insert refused for its importance is not inserted: no window.
  window: () => null,
  capacity: (c) => Math.max(1, Math.floor(c.cells * Math.LN2)),
  slack: () => 0,
  aging: {
    name: 'delete rounds',
    run: () => ({ ops: 3000, mix: { query: 1, insert: 2, testAndInsert: 1 }, minEvents: 2000 }),
  },
  analyze: ibfAnalysis,
  software: ibfSoftware,
  sample: sampleIbf,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['ibf_imp_k4_m4'],
  experiments: ibfExperiments,
  lanes: { kind: 'sharded', ...ibfLanes },
};
