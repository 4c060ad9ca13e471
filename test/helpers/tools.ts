/** Test helpers around the external tools (installed by `make setup`, which `make test` runs). */
import { execa } from 'execa';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emitVerilog } from '../../src/emit/verilog.js';
import type { Design } from '../../src/ir/types.js';
import { yosys } from '../../src/synth/index.js';

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

/** Yosys synth_ice40 + check -assert + stat on the emitted Verilog (cached like `synth`). */
export async function synthIce40(d: Design): Promise<YosysReport> {
  const { result } = await yosys(d, 'ice40-hx8k');
  return { code: result.exitCode, output: result.errors.join('\n'), cells: result.cells, problems: result.problems };
}
