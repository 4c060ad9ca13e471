/** One example design co-simulated on every engine (the fast and the slow co-simulation tests). */
import { expect } from 'vitest';
import { EXAMPLES } from '../../src/examples/index.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { randomStimulus } from '../../sim/stimulus.js';
import { biased } from './stimulus.js';

/** Examples whose VCD is compared with Verilator's too. */
const VCD_TOO = new Set(['counter', 'fifo', 'ram1r1w', 'h3_k128', 'arith_w65', 'arith_w512']);

/** TS compiled = interpreter = Verilator = Icarus on 2000 biased random cycles (and the VCDs). */
export async function cosimExample(name: string): Promise<void> {
  const d = EXAMPLES[name]!();
  const stim = randomStimulus(d, 2000, 23, biased(d));
  const r = await cosimulate(d, stim, { icarus: true, vcd: VCD_TOO.has(name) });
  expect(r.comparisons.map((c) => c.engines[1])).toEqual(['ts-interpreter', 'verilator', 'icarus']);
  for (const c of r.comparisons) expect(c.count, formatComparison(c, d)).toBe(0);
  if (VCD_TOO.has(name)) {
    // Every port and every register/named net Verilator traces is compared.
    expect(r.vcd!.signals.length).toBeGreaterThanOrEqual(d.inputs.length + d.outputs.length);
    expect(r.vcd!.mismatches).toEqual([]);
  }
}
