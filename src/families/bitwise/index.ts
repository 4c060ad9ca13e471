/**
 * The bitwise Bloom filter family (libBf manual, "Multisets" → "Bitwise"): l levels of counting
 * Bloom filters whose counters carry into the next level; config `filter` "bitwise".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { bitwiseSchema, deriveBitwiseSizes } from './config.js';
import { bitwiseExperiments } from './experiments.js';
import { bitwiseLanes } from './lanes.js';
import { bitwiseParameters } from './params.js';
import { buildBitwise } from './rtl.js';
import { sampleBitwise } from './sampler.js';
import { bitwiseProtocol, bitwiseSoftware, BitwiseStreamModel, bitwiseFromSnapshot } from './stream.js';
import { bitwiseAnalysis } from './summary.js';
import type { BitwiseDerived } from './types.js';

export const bitwiseFamily: FilterFamily<BitwiseDerived> = {
  id: 'bitwise',
  title: 'Bitwise Bloom filters (libBf: levels of counting Bloom filters that carry into each other)',
  filters: ['bitwise'],
  schema: bitwiseSchema,
  derive: deriveBitwiseSizes,
  parameters: bitwiseParameters,
  describe: (c) =>
    `l=${c.levels.length} ` +
    c.levels.map((L, i) => `V${i}=${L.cells}x${L.width}b/k${L.k}`).join(' ') +
    ` count<2^${c.countBits} n=${c.items}`,
  build: (c) => buildBitwise(c),
  protocol: bitwiseProtocol,
  model: (c) => new BitwiseStreamModel(c),
  fromSnapshot: bitwiseFromSnapshot,
  // The control port: no aging events; occupancy: insert requests since the last clear (the port's count).
  control: () => ({ occupancy: { count: 'inserts' } }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  // A carry zeroes counters other items share (the manual's "remove it from V_0"), so with two or
  // more levels a key added since the last clear can count 0: no promise. One level never removes.
  window: (c) => (c.levels.length === 1 ? Infinity : null),
  capacity: (c) => c.items,
  slack: () => 0,
  aging: null,
  analyze: bitwiseAnalysis,
  software: bitwiseSoftware,
  sample: sampleBitwise,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  benchPresets: ['bitwise_l3_w448'],
  experiments: bitwiseExperiments,
  lanes: { kind: 'sharded', ...bitwiseLanes },
};
