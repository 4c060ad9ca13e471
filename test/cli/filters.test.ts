import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LATENCY } from '../../src/families/apbf/params.js';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

describe('filter commands', () => {
  it('generate writes the Verilog and a manifest with ports, latency and parameters', async () => {
    const dir = tmpDir('bf-gen-');
    const r = await run(['generate', 'apbf_k4_l3', '-o', dir]);
    expect(r.exitCode).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'apbf_k4_l3.manifest.json'), 'utf8'));
    expect(m.latency.cycles).toBe(LATENCY); // measured in test/filters/latency.test.ts
    expect(m.parameters).toMatchObject({ k: 4, l: 3, m: 4096, g: 709, w: 2127, s: 2836 });
    expect(m.blockRam.bits).toBe(8 * 4096);
    expect(m.ports.map((p: { name: string }) => p.name)).toContain('out_hit');
    expect(fs.readFileSync(path.join(dir, 'apbf_k4_l3.v'), 'utf8')).toMatch(/^module apbf_k4_l3 \(/m);
  });

  it('an invalid config field exits 2 with one line naming it and writes nothing', async () => {
    const dir = tmpDir('bf-gen-');
    const cfg = path.join(dir, 'bad.json');
    fs.writeFileSync(
      cfg,
      JSON.stringify({ name: 'b', filter: 'apbf', k: 4, l: 3, sliceBits: 4096, keyBits: 7, seed: 1 }),
    );
    const r = await run(['generate', cfg, '-o', path.join(dir, 'out')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(/^bloomforge: bad\.json: field 'keyBits': /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
    fs.writeFileSync(cfg, '{ "name": ');
    const j = await run(['generate', cfg, '-o', path.join(dir, 'out')]);
    expect(j.exitCode).toBe(2);
    expect(j.stderr).toMatch(/not valid JSON/);
  });

  it('simulate --json reports the measured figures', async () => {
    const r = await run(['simulate', 'apbf_k4_l3', '--ops', '5000', '--workload', 'zipf', '--json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.ops).toBe(5000);
    expect(j.opsPerCycle).toBeGreaterThan(0.9);
    expect(j.opsPerCycle).toBeLessThanOrEqual(1);
    expect(j.falseNegatives).toBe(0);
    expect(j.falsePositiveRate).toBeGreaterThanOrEqual(0);
    expect(j.modelMismatches).toBe(0);
  });

  it('simulate reads a workload file and writes a VCD', async () => {
    const dir = tmpDir('bf-sim-');
    const keys = path.join(dir, 'keys.txt');
    fs.writeFileSync(keys, '# keys\n1\n2\n0x10\n2\n1\n');
    const vcd = path.join(dir, 'run.vcd');
    const r = await run(['simulate', 'apbf_k4_l3', '--ops', '600', '--workload', keys, '--vcd', vcd, '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).inWindow).toBeGreaterThan(500);
    expect(fs.readFileSync(vcd, 'utf8')).toMatch(/\$var wire 1 \S+ out_hit \$end/);
    fs.writeFileSync(keys, '1\nbanana\n');
    const bad = await run(['simulate', 'apbf_k4_l3', '--ops', '10', '--workload', keys]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/keys\.txt:2: "banana" is not a key/);
  });

  it('verify refuses bad numbers naming the option (exit 2)', async () => {
    const r = await run(['verify', 'apbf_k4_l3', '--backpressure', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--backpressure must be a number in \[0, 1\)/);
  });
});
