/**
 * `bloomforge report` (full tier: it runs every experiment, about 20 s): worker threads, one HTML
 * page with every chart, a CSV per experiment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { experimentNames } from '../../src/experiments/index.js';
import { tmpDir } from '../helpers/tools.js';

describe('report', () => {
  it('report runs every experiment on worker threads and writes one HTML page with the charts', async () => {
    const dir = tmpDir('bf-report-');
    const r = await execa(
      process.execPath,
      [
        path.resolve('bin/bloomforge.mjs'),
        'report',
        '-o',
        dir,
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
    for (const name of experimentNames()) {
      expect(html).toContain(`<section id="${name}">`);
      expect(fs.existsSync(path.join(dir, `${name}.csv`))).toBe(true);
      expect(fs.readFileSync(path.join(dir, `${name}.csv`), 'utf8').split('\n')[0]).toBe('series,kind,x,y');
    }
    expect((html.match(/<svg /g) ?? []).length).toBe(experimentNames().length);
    expect(html).toContain('npx bloomforge experiment fp-convergence');
  });
});
