/**
 * Bad input at the command line (issue 19, "Every family"): every invalid counting/spectral
 * config is refused with one line naming the field, exit 2, and nothing written; the planner and
 * the experiments refuse bad options the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

const base = { name: 'bad', filter: 'counting', k: 4, counterBits: 4, cellsPerBank: 1024, keyBits: 64, seed: 1 };

const BAD: [string, Record<string, unknown>, string][] = [
  ['a counter width of 0', { counterBits: 0 }, 'counterBits'],
  [
    'counters wider than an iCE40 block RAM word',
    { counterBits: 17, target: 'ice40-hx8k' },
    "counterBits': a counter of 17 bits is wider than a block RAM word (16 bits on ice40-hx8k)",
  ],
  ['k over 16', { k: 17 }, 'k'],
  ['a bank of one word', { cellsPerBank: 4 }, "cellsPerBank': must be at least 8"],
  ['remove with minimum increase', { filter: 'spectral', algorithm: 'mi', remove: true }, "remove': minimum increase"],
  ['spectral without an algorithm', { filter: 'spectral' }, "algorithm': required for filter spectral"],
];

describe('counting/spectral bad input at the command line', () => {
  it('every invalid config field exits 2 with one line naming it and writes nothing', async () => {
    const dir = tmpDir('bf-cnt-bad-');
    const cfg = path.join(dir, 'bad.json');
    for (const [what, patch, field] of BAD) {
      fs.writeFileSync(cfg, JSON.stringify({ ...base, ...patch }));
      const out = path.join(dir, 'out');
      const r = await run(['generate', cfg, '-o', out]);
      expect(r.exitCode, what).toBe(2);
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
      expect(r.stderr.trim(), what).toContain(`bloomforge: bad.json: field '${field}`);
      expect(fs.existsSync(out), what).toBe(false);
    }
    // The same config without the bad field is written (the refusals are the fields, not the file).
    fs.writeFileSync(cfg, JSON.stringify(base));
    const ok = await run(['generate', cfg, '-o', path.join(dir, 'out')]);
    expect(ok.exitCode, ok.all).toBe(0);
    expect(fs.existsSync(path.join(dir, 'out', 'bad.v'))).toBe(true);
  });

  it('plan and the experiments refuse bad options with exit 2', async () => {
    const plan = await run(['plan', '--filter', 'spectral', '--algorithm', 'mi', '--items', '0', '--fp', '0.01']);
    expect(plan.exitCode, plan.all).toBe(2);
    expect(plan.stderr.trim().split('\n')).toHaveLength(1);
    expect(plan.stderr).toMatch(/--items/);
    const exp = await run(['experiment', 'count-error-rate', '--skews', '1,-2', '-o', tmpDir('bf-cnt-exp-')]);
    expect(exp.exitCode, exp.all).toBe(2);
    expect(exp.stderr).toMatch(/--skews/);
  });
});
