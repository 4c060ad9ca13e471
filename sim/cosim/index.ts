/**
 * Co-simulation: one stimulus into every engine — compiled TS simulator, reference interpreter,
 * Verilator, Icarus — and a cycle-by-cycle comparison of every output port against the
 * compiled simulator. Optionally the VCDs of the TS simulator and Verilator are compared too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Design } from '../../src/ir/types.js';
import { CompiledSim } from '../compiled.js';
import { runTrace, type Stimulus } from '../engine.js';
import { Interpreter } from '../interp.js';
import { traceToVcd } from '../vcd.js';
import { compareTraces, type Comparison } from './compare.js';
import { runIcarus } from './icarus.js';
import { compareVcds, type VcdDiff } from './vcdCompare.js';
import { runVerilator } from './verilator.js';

export interface CosimOptions {
  interpreter?: boolean;
  verilator?: boolean;
  icarus?: boolean;
  /** Compare the TS simulator's VCD with Verilator's --trace VCD. */
  vcd?: boolean;
  /** Keep the TS simulator's VCD at this path (else it goes to a temporary folder). */
  vcdFile?: string;
}

export interface CosimResult {
  design: string;
  cycles: number;
  comparisons: Comparison[];
  vcd: VcdDiff | null;
  /** Total mismatching (cycle, port) pairs over all comparisons, plus VCD sample mismatches. */
  mismatches: number;
}

export async function cosimulate(d: Design, stim: Stimulus, opts: CosimOptions = {}): Promise<CosimResult> {
  const ts = runTrace(new CompiledSim(d), stim);
  const comparisons: Comparison[] = [];
  if (opts.interpreter ?? true) {
    comparisons.push(compareTraces(d, ['ts-compiled', 'ts-interpreter'], ts, runTrace(new Interpreter(d), stim)));
  }
  let vcd: VcdDiff | null = null;
  if (opts.verilator ?? true) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-cosim-'));
    try {
      const vlVcd = opts.vcd ? path.join(dir, 'verilator.vcd') : undefined;
      const vl = await runVerilator(d, stim, vlVcd ? { vcd: vlVcd } : {});
      comparisons.push(compareTraces(d, ['ts-compiled', 'verilator'], ts, vl));
      if (vlVcd) {
        const tsVcd = opts.vcdFile ?? path.join(dir, 'ts.vcd');
        traceToVcd(d, stim, tsVcd, { all: true });
        vcd = await compareVcds(tsVcd, vlVcd, d.name, stim.length);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (opts.icarus ?? false) comparisons.push(compareTraces(d, ['ts-compiled', 'icarus'], ts, await runIcarus(d, stim)));
  const mismatches = comparisons.reduce((s, c) => s + c.count, 0) + (vcd ? vcd.mismatches.length : 0);
  return { design: d.name, cycles: stim.length, comparisons, vcd, mismatches };
}
