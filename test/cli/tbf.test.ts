import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

describe('TBF/BTBF commands', () => {
  it('generate writes Verilog and a manifest with the λ/c ports, the decision ports and the latency', async () => {
    const dir = tmpDir('bf-tbf-');
    const r = await run(['generate', 'btbf_k3_w256_b8_decision', '-o', dir]);
    expect(r.exitCode).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'btbf_k3_w256_b8_decision.manifest.json'), 'utf8'));
    expect(m.latency.cycles).toBe(11);
    expect(m.parameters).toMatchObject({ filter: 'btbf', k: 3, window: 256, blockSize: 8 });
    const ports = m.ports.map((p: { name: string }) => p.name);
    for (const p of ['in_ratio', 'in_class', 'out_hit', 'out_lambda', 'out_c', 'out_decision'])
      expect(ports).toContain(p);
  });

  it('a config whose scan cannot keep up exits 2 with one line naming the field and writes nothing', async () => {
    const dir = tmpDir('bf-tbf-');
    const cfg = path.join(dir, 'slow.json');
    fs.writeFileSync(
      cfg,
      JSON.stringify({
        name: 's',
        filter: 'btbf',
        k: 4,
        timersPerBank: 4096,
        timerBits: 8,
        window: 2000,
        blockSize: 16,
        padding: 4,
        timersPerWord: 1,
        keyBits: 64,
        seed: 1,
      }),
    );
    const r = await run(['generate', cfg, '-o', path.join(dir, 'out')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(/^bloomforge: slow\.json: field 'padding': the expiry scan cannot keep up/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('simulate --penalties random reports the standard and the inferential total penalty', async () => {
    const r = await run([
      'simulate',
      'btbf_k3_w256_b8_decision',
      '--ops',
      '20000',
      '--universe',
      '369',
      '--penalties',
      'random',
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.falseNegatives).toBe(0);
    expect(j.modelMismatches).toBe(0);
    expect(j.penalties.scored).toBe(20000);
    expect(j.penalties.ratio).toBeCloseTo(j.penalties.inferential / j.penalties.standard, 10);
    expect(j.penalties.inferential).toBeLessThan(j.penalties.standard);
    const bad = await run(['simulate', 'tbf_k4_w256', '--penalties', 'random']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/has no decision unit/);
  });

  it('analyze --json and plan --json for TBF/BTBF', async () => {
    const a = await run(['analyze', 'btbf_k4_w512_b16', '--json']);
    expect(a.exitCode).toBe(0);
    const j = JSON.parse(a.stdout);
    for (const key of ['fp', 'window', 'slack', 'npws', 'accessesFalse', 'bitsPerElement'])
      expect(j).toHaveProperty(key);
    expect(j.window).toBe(512);
    expect(j.fp).toBeGreaterThan(0);
    expect(j.fp).toBeLessThan(0.1);
    const dir = tmpDir('bf-plan-');
    const p = await run([
      'plan',
      '--filter',
      'btbf',
      '--window',
      '400',
      '--fp',
      '0.01',
      '--name',
      'p',
      '--json',
      '-o',
      dir,
    ]);
    const out = path.join(dir, 'p.json');
    expect(p.exitCode).toBe(0);
    const pj = JSON.parse(p.stdout);
    expect(pj.fp).toBeLessThanOrEqual(0.01);
    const g = await run(['generate', out, '-o', dir]);
    expect(g.exitCode).toBe(0);
  });
});
