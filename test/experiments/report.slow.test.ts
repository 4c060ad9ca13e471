/**
 * `bloomforge report` (full tier): worker threads, one HTML page with every chart, a CSV per
 * experiment. Every experiment's own run and checks are test/experiments/experiments.test.ts;
 * here `--only` picks four of three families, so the suite does not run them all twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

describe('report', () => {
  const chosen = ['fp-convergence', 'sbf-stable-point', 'pbf-cost', 'ibf-zeros'];

  it('report runs the experiments on worker threads and writes one HTML page with the charts', async () => {
    const dir = tmpDir('bf-report-');
    const r = await execa(
      process.execPath,
      [
        path.resolve('bin/bloomforge.mjs'),
        'report',
        '-o',
        dir,
        '--only',
        chosen.join(','),
        '--scale',
        '0.3',
        '--bpi',
        '6..7',
        '--k-max',
        '3',
        '--shrink',
        '16',
      ],
      {
        reject: false,
        all: true,
      },
    );
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).not.toMatch(/FAIL/);
    const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    for (const name of chosen) {
      expect(html).toContain(`<section id="${name}">`);
      expect(fs.existsSync(path.join(dir, `${name}.csv`))).toBe(true);
      expect(fs.readFileSync(path.join(dir, `${name}.csv`), 'utf8').split('\n')[0]).toBe('series,kind,x,y');
    }
    expect((html.match(/<svg /g) ?? []).length).toBe(chosen.length);
    expect(html).toContain('npx bloomforge experiment fp-convergence');
  });

  it('--only names an experiment that does not exist: one line naming the option, exit 2, nothing written', async () => {
    const dir = path.join(tmpDir('bf-report-'), 'out');
    const r = await execa(
      process.execPath,
      [path.resolve('bin/bloomforge.mjs'), 'report', '-o', dir, '--only', 'fill-ratio,nope'],
      {
        reject: false,
        all: true,
      },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--only: 'nope' is not one of/);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
