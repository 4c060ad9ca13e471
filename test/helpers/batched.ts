import { expect } from 'vitest';
import { CompiledSim, type SimOptions } from '../../sim/compiled.js';
import { compareTraces, formatComparison } from '../../sim/cosim/compare.js';
import { runTrace, type OutputTrace, type Stimulus } from '../../sim/engine.js';
import { Interpreter } from '../../sim/interp.js';
import { packRows, unpackRows } from '../../sim/stimulus.js';
import type { Design } from '../../src/ir/types.js';

/**
 * `runBatch` with an output buffer (the outputs written by the cycle loop itself), in each of
 * `forms`, equals the reference interpreter's trace, every output every cycle; returns that trace.
 */
export function expectBatchedEqual(d: Design, stim: Stimulus, forms: readonly SimOptions[]): OutputTrace {
  const cycles = stim.length;
  const ref = runTrace(new Interpreter(d), stim);
  for (const opts of forms) {
    const c = new CompiledSim(d, opts);
    const out = new Uint32Array(cycles * c.layout.outputWords);
    c.runBatch(packRows(d, d.inputs, stim), cycles, out);
    const cmp = compareTraces(d, [`batched ${c.engine}`, 'interp'], unpackRows(d, d.outputs, out, cycles), ref);
    expect(cmp.count, formatComparison(cmp, d)).toBe(0);
  }
  return ref;
}
