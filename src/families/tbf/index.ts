/**
 * The Timing Bloom Filter family (Dautrich & Ravishankar §3): TBF and Block TBF, with the
 * optional inferential decision unit (§4): config `filter` "tbf" or "btbf".
 */
import path from 'node:path';
import type { FilterFamily } from '../types.js';
import { deriveTbfSizes, tbfSchema } from './config.js';
import { tbfParameters } from './params.js';
import { tbfLanes } from './lanes.js';
import { tbfPlanner } from './planner.js';
import { buildTbf } from './rtl.js';
import { sampleTbf } from './sampler.js';
import { tbfFromSnapshot, tbfProtocol, tbfRequestFields, tbfSimulate, tbfSoftware, TbfStreamModel } from './stream.js';
import { tbfAnalysis } from './summary.js';
import type { TbfDerived } from './types.js';

export const tbfFamily: FilterFamily<TbfDerived> = {
  id: 'tbf',
  title: 'Timing Bloom filters (TBF, block BTBF, inferential decision unit)',
  filters: ['tbf', 'btbf'],
  schema: tbfSchema,
  derive: deriveTbfSizes,
  planner: tbfPlanner,
  parameters: tbfParameters,
  describe: (c) =>
    `k=${c.k} timers=${c.timersPerBank}x${c.timerBits}b B=${c.blockSize} P=${c.padding}${c.decision ? ' +decision' : ''}`,
  build: (c) => buildTbf(c),
  protocol: tbfProtocol,
  model: (c) => new TbfStreamModel(c),
  fromSnapshot: tbfFromSnapshot,
  // The control port's aging events: wraps of T+ (from TΩ to 0); occupancy estimate: the inserts
  // since the last wrap (or clear), T+·B + b = {tplus, bcnt} (B a power of two; the TBF: tplus).
  control: (c) => ({
    events: { reg: 'tplus', from: c.tOmega, to: 0 },
    occupancy: c.blockSize > 1 ? ['tplus', 'bcnt'] : 'tplus',
  }),
  verifyMix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
  requestFields: tbfRequestFields,
  window: (c) => c.window,
  // §3.2.2: a block's items share a timestamp; keys up to B − 1 inserts past the window may be found.
  slack: (c) => c.blockSize - 1,
  aging: {
    name: 'wraps',
    // Three quarters of the ops insert: enough of them for 3.5 wraps of T+ through 0..TΩ.
    run: (c) => ({
      ops: Math.ceil((3.5 * c.blockSize * (c.tOmega + 1) * 4) / 3) + 200,
      mix: { query: 1, insert: 2, testAndInsert: 1 },
      minEvents: 3,
    }),
  },
  analyze: tbfAnalysis,
  software: tbfSoftware,
  sample: sampleTbf,
  presetsDir: path.join(path.dirname(new URL(import.meta.url).pathname), 'presets'),
  demoPreset: 'btbf_k4_w512_b16',
  benchPresets: ['btbf_k4_w512_b16'],
  simulate: tbfSimulate,
  lanes: { kind: 'sharded', ...tbfLanes },
};
