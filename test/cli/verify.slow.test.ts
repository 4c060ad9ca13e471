/**
 * `verify` at the command line with Verilator and Icarus (full tier: the RTL builds and runs take
 * most of 25 s): the summary line, Icarus, --json at back-pressure 0.99 with every op run, --vcd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

describe('verify on the command line', () => {
  it('verify prints the summary line and exits 0', async () => {
    const r = await run([
      'verify',
      // A preset the slow tier's co-simulations build anyway (test/helpers/presets.ts).
      'apbbf_k2_l3_b512_4',
      '--ops',
      '3000',
      '--seed',
      '2',
      '--backpressure',
      '0.2',
      '--icarus',
    ]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout.trim().split('\n').pop()).toMatch(/^verify: 3000 ops, \d+ cycles, 0 mismatches$/);
    expect(r.stdout).toMatch(/ts-compiled = icarus/);
  });

  it('verify --json runs every op at back-pressure 0.99, and --vcd writes the run', async () => {
    const dir = tmpDir('bf-verify-');
    const vcd = path.join(dir, 'run.vcd');
    const r = await run([
      'verify',
      'btbf_k3_w256_b8_decision',
      '--ops',
      '300',
      '--backpressure',
      '0.99',
      '--json',
      '--vcd',
      vcd,
    ]);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      config: 'btbf_k3_w256_b8_decision',
      family: 'tbf',
      ops: 300,
      responses: 300,
      finished: true,
    });
    expect(j.ok).toBe(true);
    expect(j.mismatches).toBe(0);
    expect(j.rtl.map((x: { engines: string[]; count: number }) => [x.engines[1], x.count])).toEqual([['verilator', 0]]);
    // Most cycles wait for out_ready: far more cycles than ops.
    expect(j.cycles).toBeGreaterThan(10_000);
    const text = fs.readFileSync(vcd, 'utf8');
    expect(text).toMatch(/\$var wire 1 \S+ out_hit \$end/);
    expect(text).toContain(`#${10 * j.cycles}`);
  });
});
