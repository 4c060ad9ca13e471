/** Test helpers around the external tools (installed by `make setup`, which `make test` runs). */
import { execa } from 'execa';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emitVerilog } from '../../src/emit/verilog.js';
import type { Design } from '../../src/ir/types.js';

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `verilator --lint-only -Wall` on the emitted Verilog; returns its combined output and exit code. */
export async function lint(d: Design): Promise<{ code: number; output: string }> {
  const dir = tmpDir('bf-lint-');
  const file = path.join(dir, `${d.name}.v`);
  fs.writeFileSync(file, emitVerilog(d));
  const r = await execa('verilator', ['--lint-only', '-Wall', file], { reject: false, all: true });
  fs.rmSync(dir, { recursive: true, force: true });
  return { code: r.exitCode ?? -1, output: r.all ?? '' };
}

export interface YosysReport {
  code: number;
  output: string;
  cells: Record<string, number>;
  problems: number | null;
}

/** Yosys synth_ice40 + check -assert + stat on the emitted Verilog. */
export async function synthIce40(d: Design): Promise<YosysReport> {
  const dir = tmpDir('bf-ys-');
  const file = path.join(dir, `${d.name}.v`);
  fs.writeFileSync(file, emitVerilog(d));
  const r = await execa('yosys', ['-p', `read_verilog ${file}; synth_ice40 -top ${d.name}; check -assert; stat`], {
    reject: false,
    all: true,
  });
  fs.rmSync(dir, { recursive: true, force: true });
  const out = r.all ?? '';
  const statStart = out.lastIndexOf('Number of cells:');
  const cells: Record<string, number> = {};
  for (const m of out.slice(statStart).matchAll(/^\s+(\S+)\s+(\d+)$/gm)) cells[m[1]!] = Number(m[2]);
  const probs = [...out.matchAll(/Found and reported (\d+) problems/g)].map((m) => Number(m[1]));
  return { code: r.exitCode ?? -1, output: out, cells, problems: probs.length ? Math.max(...probs) : null };
}
