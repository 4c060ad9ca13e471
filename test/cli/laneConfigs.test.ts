/**
 * A lane config is an ordinary config: generate, verify, simulate, analyze, plan, bench and synth
 * take a config with `lanes`/`shards` (a lane preset, a JSON file, or --lanes on a one-lane
 * preset) and do the N-lane thing; `bloomforge lanes …` are the same commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

/** A 4-lane preset that fits an iCE40 HX8K. */
const FOUR = 'apbf_k3_l2_4x4';

describe('lane configs through the ordinary commands', () => {
  it('verify <4-lane preset> --backpressure 0 passes (model, memories, Verilator)', async () => {
    const r = await run(['verify', FOUR, '--backpressure', '0', '--ops', '300', '--json']);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      config: FOUR,
      lanes: 4,
      shards: 4,
      ops: 1200,
      responses: 1200,
      finished: true,
      ok: true,
    });
    expect(j.rtl).toHaveLength(1);
    expect(j.rtl[0].count).toBe(0);
  });

  it('generate <4-lane preset> writes the whole IP folder, the .v lint-clean; lanes generate writes the same', async () => {
    const dir = tmpDir('bf-lanes-ip-');
    const r = await run(['generate', FOUR, '-o', dir]);
    expect(r.exitCode, r.all).toBe(0);
    const want = [
      `${FOUR}.v`,
      `${FOUR}.manifest.json`,
      `${FOUR}.core`,
      `${FOUR}_inst.v`,
      `${FOUR}_inst.vhd`,
      'README.md',
    ];
    expect(fs.readdirSync(dir).sort()).toEqual(want.sort());
    expect(JSON.parse(fs.readFileSync(path.join(dir, `${FOUR}.manifest.json`), 'utf8'))).toMatchObject({
      lanes: 4,
      shards: 4,
    });
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toMatch(/\| `in<i>_key` \| in \| 32 \| lane i \(0\.\.3\): key \|/);
    expect(readme).toMatch(/\| `out<i>_seq` \| out \| 16 \|/);
    const lint = await execa('verilator', ['--lint-only', '-Wall', `${FOUR}.v`], {
      cwd: dir,
      reject: false,
      all: true,
    });
    expect(lint.all).toBe('');
    expect(lint.exitCode).toBe(0);

    const alias = tmpDir('bf-lanes-ip-');
    const a = await run(['lanes', 'generate', FOUR, '-o', alias]);
    expect(a.exitCode, a.all).toBe(0);
    for (const f of want)
      expect(fs.readFileSync(path.join(alias, f), 'utf8')).toBe(fs.readFileSync(path.join(dir, f), 'utf8'));
  });

  it('analyze a lane config: the sharded analysis and its measured fp; plan --lanes writes a config analyze takes', async () => {
    const a = await run(['analyze', FOUR, '--queries', '2000', '--json']);
    expect(a.exitCode, a.all).toBe(0);
    const j = JSON.parse(a.stdout);
    expect(j).toMatchObject({ lanes: 4, shards: 4 });
    expect(j.analysis.fp).toBeGreaterThan(0);
    expect(j.analysis.fpOneLane).toBeGreaterThan(0);
    expect(j.fp.queries).toBe(2000);

    const dir = tmpDir('bf-lanes-plan-');
    const p = await run(
      ['plan', '--filter', 'apbf', '--window', '500', '--fp', '0.02', '--target', 'ecp5'].concat([
        '--lanes',
        '4',
        '--name',
        'four',
        '--json',
        '-o',
        dir,
      ]),
    );
    expect(p.exitCode, p.all).toBe(0);
    const plan = JSON.parse(p.stdout);
    expect(plan.lanes).toBe(4);
    const b = await run(['analyze', path.join(dir, 'four.json'), '--queries', '1000', '--json']);
    expect(b.exitCode, b.all).toBe(0);
    expect(JSON.parse(b.stdout).analysis.fp).toBeCloseTo(plan.fp, 12);
  });

  it('simulate a lane config writes a VCD of every lane; --lanes makes a one-lane preset an N-lane one', async () => {
    const dir = tmpDir('bf-lanes-sim-');
    const vcd = path.join(dir, 'run.vcd');
    const r = await run(['simulate', FOUR, '--ops', '200', '--vcd', vcd, '--json']);
    expect(r.exitCode, r.all).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ lanes: 4, ops: 800, finished: true, modelMismatches: 0 });
    const text = fs.readFileSync(vcd, 'utf8');
    expect(text).toMatch(/\$var wire 1 \S+ in3_valid \$end/);
    expect(text).toMatch(/\$var wire 1 \S+ out0_hit \$end/);
    const two = await run(['simulate', 'apbf_k4_l3', '--lanes', '2', '--target', 'ecp5', '--ops', '100', '--json']);
    expect(two.exitCode, two.all).toBe(0);
    expect(JSON.parse(two.stdout)).toMatchObject({ lanes: 2, shards: 2, ops: 200 });
  });

  it('options of one kind only are refused naming them (exit 2, one line)', async () => {
    for (const [args, re] of [
      [['synth', FOUR, '--control', 'regs'], /--control regs applies to one-lane filters; apbf_k3_l2_4x4 has 4 lanes/],
      [['verify', FOUR, '--icarus'], /--icarus applies to one-lane filters/],
      [['analyze', 'apbf_k4_l3', '--moment', 'shift'], /--moment applies to N-lane filters/],
      [['generate', FOUR, '-o', tmpDir('x'), '--interface', 'axis'], /--interface axis: an N-lane filter/],
      [['verify', 'apbf_k4_l3', '--lanes', '3'], /--lanes must be one of 1, 2, 4, 8/],
    ] as const) {
      const r = await run([...args]);
      expect(r.exitCode, r.all).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    }
  });

  it('bench a lane config, short and without synthesis', async () => {
    const r = await run([
      'bench',
      'apbf_k3_l3_2x2',
      '--no-synth',
      '--cycles',
      '1000',
      '--ops',
      '200',
      '--threads',
      '1',
      '--json',
    ]);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ lanes: 2, shards: 2, fmaxMHz: null, threads: 1 });
    expect(j.opsPerCycle).toBeGreaterThan(1);
    expect(j.sim.outputsEqual).toBe(true);
    expect(j.swOpsPerSec).toBeGreaterThan(0);
  });
});
