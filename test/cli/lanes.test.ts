/**
 * `plan --lanes` and `bloomforge lanes` through the command line: a plan written with -o is a
 * config `lanes generate` and `lanes analyze` accept, and the figures they print agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

describe('plan --lanes, lanes generate and lanes analyze', () => {
  it('the planned N-lane config generates, and analyze reports the plan’s sharded fp', async () => {
    const dir = tmpDir('bf-lanes-');
    const p = await run([
      'plan',
      '--filter',
      'apbf',
      '--window',
      '500',
      '--fp',
      '0.02',
      '--target',
      'ecp5',
      '--lanes',
      '2',
      '--name',
      'two',
      '--json',
      '-o',
      dir,
    ]);
    expect(p.exitCode, p.all).toBe(0);
    const plan = JSON.parse(p.stdout);
    expect(plan).toMatchObject({ lanes: 2, shards: 16, window: 500 });
    expect(plan.fp).toBeLessThanOrEqual(0.02);
    const cfg = path.join(dir, 'two.json');
    expect(JSON.parse(fs.readFileSync(cfg, 'utf8'))).toMatchObject({ lanes: 2, shards: 16, name: 'two' });

    const g = await run(['lanes', 'generate', cfg, '-o', dir]);
    expect(g.exitCode, g.all).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'two.manifest.json'), 'utf8'));
    expect(m).toMatchObject({ lanes: 2, shards: 16 });
    expect(fs.readFileSync(path.join(dir, 'two.v'), 'utf8')).toMatch(/module two/);

    const a = await run(['lanes', 'analyze', cfg, '--queries', '2000', '--json']);
    expect(a.exitCode, a.all).toBe(0);
    const j = JSON.parse(a.stdout);
    expect(j.analysis.fp).toBeCloseTo(plan.fp, 12);
    expect(j.analysis.fpOneLane).toBeCloseTo(plan.fpOneLane, 12);
    expect(j.fp.queries).toBe(2000);
  });

  it('lanes analyze --moment must be shift or cycle', async () => {
    const r = await run(['lanes', 'analyze', 'apbf_k4_l3', '--lanes', '2', '--moment', 'noon']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--moment must be one of shift, cycle/);
  });
});
