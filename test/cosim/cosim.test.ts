import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, h3Banks } from '../../src/examples/index.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { compareVcds } from '../../sim/cosim/vcdCompare.js';
import { runVerilator } from '../../sim/cosim/verilator.js';
import { randomStimulus } from '../../sim/stimulus.js';
import { traceToVcd } from '../../sim/vcd.js';
import { biased } from '../helpers/stimulus.js';
import { tmpDir } from '../helpers/tools.js';

const VCD_TOO = new Set(['counter', 'fifo', 'ram1r1w', 'h3_k128', 'arith_w65', 'arith_w512']);

describe('co-simulation: TS compiled = interpreter = Verilator = Icarus, cycle by cycle', () => {
  for (const [name, make] of Object.entries(EXAMPLES)) {
    it(`${name}`, async () => {
      const d = make();
      const stim = randomStimulus(d, 2000, 23, biased(d));
      const r = await cosimulate(d, stim, { icarus: true, vcd: VCD_TOO.has(name) });
      expect(r.comparisons.map((c) => c.engines[1])).toEqual(['ts-interpreter', 'verilator', 'icarus']);
      for (const c of r.comparisons) expect(c.count, formatComparison(c, d)).toBe(0);
      if (VCD_TOO.has(name)) {
        // Every port and every register/named net Verilator traces is compared.
        expect(r.vcd!.signals.length).toBeGreaterThanOrEqual(d.inputs.length + d.outputs.length);
        expect(r.vcd!.mismatches).toEqual([]);
      }
    });
  }

  it('the benchmark design (8 H3 units + 8 block RAMs) agrees on Verilator', async () => {
    const d = h3Banks();
    const r = await cosimulate(d, randomStimulus(d, 5000, 3), { interpreter: false });
    expect(r.mismatches).toBe(0);
  });

  it('a VCD that differs is reported with cycle and signal (the check is not vacuous)', async () => {
    const d = EXAMPLES.counter!();
    const stim = randomStimulus(d, 50, 2, { drive: { rst: (c) => (c === 0 ? 1n : 0n), en: () => 1n } });
    const dir = tmpDir('bf-vcdneg-');
    const ts = path.join(dir, 'ts.vcd');
    const vl = path.join(dir, 'vl.vcd');
    traceToVcd(d, stim, ts);
    await runVerilator(d, stim, { vcd: vl });
    expect((await compareVcds(ts, vl, d.name, stim.length)).mismatches).toEqual([]);
    // Corrupt the TS VCD: count reads 0xff at time 204 (cycle 20).
    const text = fs
      .readFileSync(ts, 'utf8')
      .replace(/^#204$/m, '#204\nb11111111 ' + idOf(fs.readFileSync(ts, 'utf8'), 'count'));
    fs.writeFileSync(
      ts,
      text.includes('#204') ? text : text.replace(/^#200$/m, '#200\nb11111111 ' + idOf(text, 'count')),
    );
    const diff = await compareVcds(ts, vl, d.name, stim.length);
    expect(diff.mismatches.some((m) => m.signal === 'count' && m.cycle === 20)).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

function idOf(vcd: string, name: string): string {
  return new RegExp(`\\$var wire \\d+ (\\S+) ${name}[ $]`).exec(vcd)![1]!;
}
