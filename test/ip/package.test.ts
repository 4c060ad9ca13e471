/**
 * Drop-in IP: the FuseSoC cores (checked against the CAPI2 schema's keys), the generator FuseSoC
 * runs, and the instantiation templates (the Verilog instance compiled by Verilator against the
 * module; the VHDL component names every port with its width).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/resolve.js';
import { ipFiles, portTableRows } from '../../src/ip/package.js';
import { loadFilter } from '../../src/config/load.js';
import { VERSION } from '../../src/version.js';
import { capi2Problems, coreBody } from '../helpers/capi2.js';
import { tmpDir } from '../helpers/tools.js';

const PRESETS = ['apbf_k4_l3', 'btbf_k3_w256_b8_decision'];

describe('generate: a FuseSoC core, templates and a README beside the Verilog', () => {
  for (const name of PRESETS)
    for (const iface of ['native', 'axis'] as const) {
      const files = ipFiles(loadConfig(name), iface);
      const top = iface === 'axis' ? `${name}_axis` : name;

      it(`${name} (${iface}): the .core has only CAPI2 keys, names the Verilog and the toplevel, and has the targets`, () => {
        const core = parse(coreBody(files[`${top}.core`]!)) as Record<string, unknown>;
        expect(capi2Problems(core)).toEqual([]);
        expect(core.name).toBe(`bloomforge:filters:${top}:${VERSION}`);
        const rtl = (core.filesets as Record<string, { files: string[]; file_type: string }>).rtl!;
        expect(rtl.files).toEqual([`${top}.v`]);
        expect(rtl.file_type).toBe('verilogSource');
        expect(files[`${top}.v`]).toBeDefined();
        const targets = core.targets as Record<string, { toplevel: string; default_tool?: string }>;
        expect(Object.keys(targets).sort()).toEqual(['default', 'lint', 'sim', 'synth']);
        for (const t of Object.values(targets)) expect(t.toplevel).toBe(top);
        expect([targets.lint!.default_tool, targets.sim!.default_tool, targets.synth!.default_tool]).toEqual([
          'verilator',
          'verilator',
          'yosys',
        ]);
      });

      it(`${name} (${iface}): the Verilog instance template compiles against the module (Verilator lint)`, async () => {
        const dir = tmpDir('bf-inst-');
        const manifest = JSON.parse(files[`${top}.manifest.json`]!) as { ports: { name: string; width: number }[] };
        const clock = iface === 'axis' ? 'aclk' : 'clk';
        const nets = [{ name: clock, width: 1 }, ...manifest.ports].map(
          (p) => `  wire ${p.width > 1 ? `[${p.width - 1}:0] ` : ''}${p.name};`,
        );
        const wrapper = [
          '/* verilator lint_off UNUSEDSIGNAL */',
          '/* verilator lint_off UNDRIVEN */',
          'module inst_top;',
          ...nets,
          files[`${top}_inst.v`]!,
          'endmodule',
          '',
        ].join('\n');
        fs.writeFileSync(path.join(dir, 'inst_top.v'), wrapper);
        fs.writeFileSync(path.join(dir, `${top}.v`), files[`${top}.v`]!);
        const r = await execa(
          'verilator',
          ['--lint-only', '-Wall', '--top-module', 'inst_top', 'inst_top.v', `${top}.v`],
          {
            cwd: dir,
            reject: false,
            all: true,
          },
        );
        expect(r.all).toBe('');
        expect(r.exitCode).toBe(0);
      });

      it(`${name} (${iface}): the VHDL component and the README list every port with its width`, () => {
        const manifest = JSON.parse(files[`${top}.manifest.json`]!) as {
          ports: { name: string; width: number; direction: string }[];
        };
        const vhd = files[`${top}_inst.vhd`]!;
        const readme = files['README.md']!;
        for (const p of manifest.ports) {
          const type = p.width === 1 ? 'std_logic' : `std_logic_vector\\(${p.width - 1} downto 0\\)`;
          expect(vhd).toMatch(new RegExp(`^\\s+${p.name}\\s+: ${p.direction === 'in' ? 'in ' : 'out'} ${type}`, 'm'));
          expect(readme).toContain(`| \`${p.name}\` | ${p.direction} | ${p.width} |`);
        }
      });
    }
});

describe('generate of an N-lane filter: the same IP folder, lanes in the port table', () => {
  const lf = loadFilter('apbf_k3_l3_2x2');
  const files = ipFiles(lf);
  const top = lf.name;
  const manifest = JSON.parse(files[`${top}.manifest.json`]!) as {
    lanes: number;
    ports: { name: string; width: number; direction: string }[];
  };

  it('writes the .v, manifest, .core, both templates and the README; the .core names the lanes design', () => {
    expect(Object.keys(files).sort()).toEqual(
      [`${top}.v`, `${top}.manifest.json`, `${top}.core`, `${top}_inst.v`, `${top}_inst.vhd`, 'README.md'].sort(),
    );
    expect(files[`${top}.v`]).toBe(lf.verilog());
    expect(manifest.lanes).toBe(2);
    const core = parse(coreBody(files[`${top}.core`]!)) as Record<string, unknown>;
    expect(capi2Problems(core)).toEqual([]);
    expect(core.description).toMatch(/2 lanes over 2 shards/);
  });

  it('the README documents each lane port once as in<i>_* / out<i>_*, the templates name every port', () => {
    const readme = files['README.md']!;
    const vhd = files[`${top}_inst.vhd`]!;
    const inst = files[`${top}_inst.v`]!;
    for (const p of manifest.ports) {
      const lane = /^(in|out)(\d+)_(.*)$/.exec(p.name);
      const row = lane ? `${lane[1]}<i>_${lane[3]}` : p.name;
      expect(readme).toContain(`| \`${row}\` | ${p.direction} | ${p.width} | ${lane ? 'lane i (0..1): ' : ''}`);
      expect(vhd).toMatch(new RegExp(`^\\s+${p.name}\\s+: ${p.direction === 'in' ? 'in ' : 'out'} `, 'm'));
      expect(inst).toMatch(new RegExp(`^\\s+\\.${p.name}\\s`, 'm'));
    }
    expect(readme).not.toMatch(/in1_valid/);
    expect(readme).toMatch(/up to one request per lane per cycle/);
  });

  it('an N-lane filter has no AXI4-Stream wrapper nor control port: refused naming the option', () => {
    expect(() => ipFiles(lf, 'axis')).toThrow(/^--interface axis: an N-lane filter/);
    expect(() => ipFiles(lf, 'native', 'regs')).toThrow(/^--control regs: an N-lane filter/);
  });

  it('portTableRows keeps every port of a one-lane design', () => {
    const d = loadConfig('apbf_k4_l3').design();
    expect(portTableRows(d, 1).length).toBe(d.inputs.length + d.outputs.length + 1);
  });
});

describe('bloomforge as a FuseSoC generator', () => {
  const bin = path.resolve('bin/bloomforge-fusesoc.mjs');

  it('hdl/fusesoc/bloomforge.core registers it: CAPI2 keys only, this version, a command that exists', () => {
    const text = fs.readFileSync('hdl/fusesoc/bloomforge.core', 'utf8');
    const core = parse(coreBody(text)) as {
      name: string;
      generators: Record<string, { command: string; interpreter: string }>;
    };
    expect(capi2Problems(core as unknown as Record<string, unknown>)).toEqual([]);
    expect(core.name.split(':')[3]).toBe(VERSION);
    const g = core.generators.bloomforge!;
    expect(g.interpreter).toBe('node');
    expect(fs.existsSync(path.resolve('hdl/fusesoc', g.command))).toBe(true);
  });

  it('given the input FuseSoC writes, it generates the filter and a core with the vlnv asked for', async () => {
    const dir = tmpDir('bf-gen-');
    const input = path.join(dir, 'input.yml');
    fs.writeFileSync(
      input,
      [
        'gapi: "1.0"',
        `files_root: ${dir}`,
        'vlnv: "::dedup:0"',
        'parameters:',
        '  filter: apbf',
        '  k: 4',
        '  l: 3',
        '  sliceBits: 4096',
        '  keyBits: 64',
        '  seed: 7',
        '  interface: axis',
        '',
      ].join('\n'),
    );
    const r = await execa(process.execPath, [bin, input], { cwd: dir, reject: false, all: true });
    expect(r.exitCode, r.all).toBe(0);
    const core = parse(coreBody(fs.readFileSync(path.join(dir, 'dedup.core'), 'utf8'))) as Record<string, unknown>;
    expect(capi2Problems(core)).toEqual([]);
    expect(core.name).toBe('::dedup:0');
    expect((core.targets as { default: { toplevel: string } }).default.toplevel).toBe('dedup_axis');
    expect(fs.readFileSync(path.join(dir, 'dedup_axis.v'), 'utf8')).toMatch(/^module dedup_axis \(/m);
    expect(fs.existsSync(path.join(dir, 'dedup_axis.core'))).toBe(false);
  });

  it('bad parameters are one line naming the field, exit 2, nothing written', async () => {
    const dir = tmpDir('bf-gen-');
    const input = path.join(dir, 'input.yml');
    fs.writeFileSync(
      input,
      'vlnv: "::dedup:0"\nparameters:\n  filter: apbf\n  k: 0\n  l: 3\n  sliceBits: 4096\n  keyBits: 64\n  seed: 1\n',
    );
    const r = await execa(process.execPath, [bin, input], { cwd: dir, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/field 'k'/);
    expect(fs.readdirSync(dir)).toEqual(['input.yml']);
  });
});
