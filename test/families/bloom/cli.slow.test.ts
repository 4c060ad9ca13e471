/**
 * The set filters through the command line: an invalid config exits 2 with one line naming the
 * field and writes nothing; `plan --filter basic|partitioned|blocked --items n --fp p` writes a
 * config that `generate` builds; bad planner arguments exit 2 with one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

const oneLine = (s: string): string[] => s.trim().split('\n');

describe('bloom on the command line', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['k larger than the slices', { filter: 'partitioned', k: 5, bits: 8 }, 'k'],
    ['a word width of 0', { filter: 'basic', k: 4, bits: 1024, wordBits: 0 }, 'wordBits'],
    ['b = B', { filter: 'blocked', blockBits: 8, bitsPerBlock: 8, bits: 1024 }, 'bitsPerBlock'],
    ['a basic vector not a power of two', { filter: 'basic', k: 4, bits: 10_000 }, 'bits'],
  ];
  for (const [what, fields, field] of bad)
    it(`generate refuses ${what}: exit 2, one line naming '${field}', nothing written`, async () => {
      const dir = tmpDir('bf-bloom-');
      const cfg = path.join(dir, 'bad.json');
      fs.writeFileSync(cfg, JSON.stringify({ name: 'b', keyBits: 64, seed: 1, ...fields }));
      const out = path.join(dir, 'out');
      const r = await run(['generate', cfg, '-o', out]);
      expect(r.exitCode).toBe(2);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(new RegExp(`^bloomforge: bad\\.json: field '${field}': `));
      expect(fs.existsSync(out)).toBe(false);
    });

  it('plan --filter partitioned --items --fp --target writes a config that generate builds', async () => {
    const dir = tmpDir('bf-bloom-');
    const planDir = path.join(dir, 'plan');
    const planned = path.join(planDir, 'planned.json');
    const p = await run([
      'plan',
      '--filter',
      'partitioned',
      '--items',
      '5000',
      '--fp',
      '0.001',
      '--target',
      'ice40-hx8k',
      '-o',
      planDir,
    ]);
    expect(p.exitCode, p.all).toBe(0);
    const cfg = JSON.parse(fs.readFileSync(planned, 'utf8'));
    expect(cfg).toMatchObject({ filter: 'partitioned', k: 9, sliceBits: 8192, items: 5000 });
    const out = path.join(dir, 'out');
    const g = await run(['generate', planned, '-o', out]);
    expect(g.exitCode, g.all).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(out, 'planned.manifest.json'), 'utf8'));
    expect(m.parameters).toMatchObject({ k: 9 });
  });

  it('plan --filter basic|blocked --json chooses sizes meeting the fp', async () => {
    for (const filter of ['basic', 'blocked']) {
      const r = await run(['plan', '--filter', filter, '--items', '2000', '--fp', '0.01', '--json']);
      expect(r.exitCode, r.all).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.winner.filter).toBe(filter);
      expect(j.fp).toBeLessThanOrEqual(0.01);
    }
  });

  const badPlan: [string[], RegExp][] = [
    [['--filter', 'blocked', '--items', '5000', '--fp', '0'], /--fp/],
    [['--filter', 'basic', '--items', '0', '--fp', '0.01'], /--items/],
    [['--filter', 'basic', '--items', '5000', '--fp', '0.01', '--window', '100'], /--window/],
  ];
  for (const [args, msg] of badPlan)
    it(`plan ${args.join(' ')}: exit 2, one line`, async () => {
      const dir = tmpDir('bf-bloom-');
      const out = path.join(dir, 'p.json');
      const r = await run(['plan', ...args, '-o', out]);
      expect(r.exitCode).toBe(2);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
      expect(fs.existsSync(out)).toBe(false);
    });
});
