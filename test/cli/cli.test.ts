import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [BIN, ...args], { reject: false, all: true, env: { ...process.env, ...env } });

describe('CLI', () => {
  it('build writes Verilog and a manifest with ports', async () => {
    const dir = tmpDir('bf-cli-');
    const r = await run(['build', 'fifo', '-o', dir]);
    expect(r.exitCode).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'fifo.manifest.json'), 'utf8'));
    expect(manifest.ports.map((p: { name: string }) => p.name)).toEqual([
      'push',
      'din',
      'pop',
      'rst',
      'dout',
      'dout_valid',
      'full',
      'empty',
    ]);
    expect(fs.readFileSync(path.join(dir, 'fifo.v'), 'utf8')).toMatch(/^module fifo \(/m);
  });

  // The CLI runs under tsx (Node's source maps), vitest under its own stack formatter: each cell's
  // source line (the `src` attribute) comes out of different code paths in src/ir/srcloc.ts, and
  // must be the same line in both — the golden files are written by the CLI, compared in vitest.
  it('generate writes the Verilog of generated/ byte for byte, source lines included (one-lane and N-lane)', async () => {
    const dir = tmpDir('bf-cli-');
    const r = await run(['generate', 'apbf_k4_l3', '-o', dir]);
    expect(r.exitCode, r.all).toBe(0);
    const v = fs.readFileSync(path.join(dir, 'apbf_k4_l3.v'), 'utf8');
    expect(v).toMatch(/\(\* src = "src\/families\/apbf\/rtl\.ts:\d+" \*\)/);
    expect(v).toBe(fs.readFileSync(path.resolve('generated/apbf_k4_l3.v'), 'utf8'));
    const l = await run(['lanes', 'generate', 'apbf_k3_l3_2x2', '-o', dir]);
    expect(l.exitCode, l.all).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'apbf_k3_l3_2x2.v'), 'utf8')).toBe(
      fs.readFileSync(path.resolve('generated/apbf_k3_l3_2x2.v'), 'utf8'),
    );
  });

  it('a design with a width error exits 2 with one line naming the signal and line, writing nothing', async () => {
    const dir = tmpDir('bf-cli-');
    const design = path.join(dir, 'bad.mts');
    fs.writeFileSync(
      design,
      [
        `import { ModuleBuilder } from ${JSON.stringify(path.resolve('src/dsl/module.js'))};`,
        'export default () => {',
        "  const m = new ModuleBuilder('bad');",
        "  const a = m.input('a', 8);",
        "  m.output('y', a.add(m.input('b', 4)));",
        '  return m.build();',
        '};',
      ].join('\n'),
    );
    const out = path.join(dir, 'out');
    const r = await run(['build', design, '-o', out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bad\.mts:5:\d+: design 'bad': width mismatch.*'a' must be 8 bits, 'b' is 4 bits/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('unknown designs, missing files and bad numbers are usage errors (exit 2)', async () => {
    expect((await run(['build', 'nope', '-o', tmpDir('x')])).exitCode).toBe(2);
    const missing = await run(['build', 'missing.ts', '-o', tmpDir('x')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no such file 'missing.ts'/);
    const cycles = await run(['cosim', 'counter', '--cycles', 'lots']);
    expect(cycles.exitCode).toBe(2);
    expect(cycles.stderr).toMatch(/--cycles must be a whole number/);
    expect((await run(['frobnicate'])).exitCode).toBe(2);
  });

  it('a missing Verilator is reported with its Debian package (exit 3)', async () => {
    const bin = tmpDir('bf-path-');
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    const r = await run(['cosim', 'counter', '--cycles', '10'], { PATH: bin });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/verilator not found.*Debian package 'verilator'/);
  });

  it('cosim reports 0 mismatches and sim writes a VCD', async () => {
    const r = await run(['cosim', 'ram1r1w', '--cycles', '300', '--icarus']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/cosim: 300 cycles, 0 mismatches/);
    const vcd = path.join(tmpDir('bf-vcd-'), 'c.vcd');
    const s = await run(['sim', 'counter', '--cycles', '20', '--vcd', vcd]);
    expect(s.exitCode).toBe(0);
    expect(fs.readFileSync(vcd, 'utf8')).toMatch(/\$var wire 8 \S+ count \[7:0\] \$end/);
  });
});
