import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/examples/index.js';
import { compareVcds } from '../../sim/cosim/vcdCompare.js';
import { runVerilator } from '../../sim/cosim/verilator.js';
import { randomStimulus } from '../../sim/stimulus.js';
import { traceToVcd } from '../../sim/vcd.js';
import { cosimExample } from '../helpers/cosim.js';
import { tmpDir } from '../helpers/tools.js';

/** The examples the fast tier co-simulates; examples.slow.test.ts does every one. */
const FAST = ['counter', 'fifo', 'ram1r1w', 'arith_w65'];

describe('co-simulation: TS compiled = interpreter = Verilator = Icarus, cycle by cycle', () => {
  for (const name of FAST) it(`${name}`, () => cosimExample(name));

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
