/**
 * `npm run bench:sim`: the same design and the same stimulus on the compiled TS simulator and on
 * Verilator -O3, in one run. Prints cycles/s of both and the ratio TS / Verilator, for the TS
 * simulator as used (its cycle loop compiled to WebAssembly) and with its cycle loop compiled to
 * JavaScript instead. Every engine does the same work per cycle: read the inputs from a
 * preloaded buffer, evaluate, store every output into an output buffer, clock edge. The output
 * buffers are compared with Verilator's afterwards.
 *
 * Usage: npm run bench:sim -- [--cycles N] [--json]
 */
import os from 'node:os';
import { h3Banks } from '../../src/examples/index.js';
import { buildFilter, deriveFilter } from '../../src/families/legacy.js';
import { loadPreset } from '../../src/presets/index.js';
import type { Design } from '../../src/ir/types.js';
import { CompiledSim, type CycleEngine } from '../compiled.js';
import { benchVerilator } from '../cosim/verilator.js';

/** Packed stimulus from a 32-bit xorshift: fast enough for millions of cycles. */
export function benchStimulus(d: Design, cycles: number, seed = 1): Uint32Array {
  const sim = new CompiledSim(d);
  const iw = sim.layout.inputWords;
  const buf = new Uint32Array(cycles * iw);
  let x = seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  for (let c = 0; c < cycles; c++) {
    d.inputs.forEach((p, i) => {
      const w = d.nets[p.net]!.width;
      const off = c * iw + sim.layout.inputOffsets[i]!;
      if (p.name === 'rst') buf[off] = c === 0 ? 1 : 0;
      else if (p.name === 'valid') buf[off] = next() % 8 !== 0 ? 1 : 0;
      // Filter pipelines: a request every cycle (query, insert or test-and-insert), never back-pressured.
      else if (p.name === 'in_valid' || p.name === 'out_ready') buf[off] = 1;
      else if (p.name === 'in_op') buf[off] = next() % 3;
      else
        for (let k = 0; k < Math.ceil(w / 32); k++)
          buf[off + k] = w - 32 * k >= 32 ? next() : next() & ((1 << (w - 32 * k)) - 1);
    });
  }
  return buf;
}

/**
 * Cycles/s of `sim.runBatch` over `cycles` cycles of `stim`, after a warm-up run (so the JIT has
 * compiled the generated code) and a reset; the outputs land in `out`.
 */
export function timeRunBatch(sim: CompiledSim, stim: Uint32Array, cycles: number, out: Uint32Array): number {
  sim.runBatch(stim, Math.min(cycles, 200_000), out);
  sim.reset();
  const t0 = process.hrtime.bigint();
  sim.runBatch(stim, cycles, out);
  return cycles / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export interface SimBenchResult {
  design: string;
  cycles: number;
  /** The TS simulator as used everywhere (its cycle loop compiled to WebAssembly). */
  tsCyclesPerSec: number;
  /** The same with the cycle loop compiled to JavaScript (`engine: 'js'`), for comparison. */
  tsJsCyclesPerSec: number;
  verilatorCyclesPerSec: number;
  ratio: number;
  outputsEqual: boolean;
}

export async function simBench(d: Design, cycles: number): Promise<SimBenchResult> {
  const stim = benchStimulus(d, cycles);
  const vl = await benchVerilator(d, stim, cycles);
  const timed = (engine: CycleEngine): { rate: number; equal: boolean } => {
    const sim = new CompiledSim(d, { engine });
    const out = new Uint32Array(cycles * sim.layout.outputWords);
    const rate = timeRunBatch(sim, stim, cycles, out);
    let equal = vl.out.length >= out.length;
    for (let i = 0; i < out.length && equal; i++) equal = out[i] === vl.out[i];
    return { rate, equal };
  };
  const wasm = timed('wasm');
  const js = timed('js');
  const tsCyclesPerSec = wasm.rate;
  const outputsEqual = wasm.equal && js.equal;
  return {
    design: d.name,
    cycles,
    tsCyclesPerSec,
    tsJsCyclesPerSec: js.rate,
    verilatorCyclesPerSec: vl.cyclesPerSec,
    ratio: tsCyclesPerSec / vl.cyclesPerSec,
    outputsEqual,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const i = args.indexOf('--cycles');
  const cycles = i >= 0 ? Number(args[i + 1]) : 2_000_000;
  if (!Number.isInteger(cycles) || cycles < 1000) {
    console.error('bench:sim: --cycles must be an integer >= 1000');
    process.exit(2);
  }
  const designs = [
    h3Banks(),
    ...['apbf_k4_l3', 'apbbf_k2_l5_b512_4', 'btbf_k4_w512_b16'].map((n) => buildFilter(deriveFilter(loadPreset(n)))),
  ];
  const results: SimBenchResult[] = [];
  for (const d of designs) results.push(await simBench(d, cycles));
  if (args.includes('--json')) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    console.log(`bench:sim on ${os.cpus().length} cores, node ${process.version}, ${cycles} cycles per engine`);
    console.log(
      'design                TS cycles/s   Verilator cycles/s   TS/Verilator   TS, JS loop   JS loop/Verilator   outputs equal',
    );
    const M = (x: number, w: number): string => `${(x / 1e6).toFixed(2).padStart(w)} M`;
    for (const r of results) {
      console.log(
        `${r.design.padEnd(20)} ${M(r.tsCyclesPerSec, 9)} ${M(r.verilatorCyclesPerSec, 16)} ${r.ratio.toFixed(2).padStart(13)}x ` +
          `${M(r.tsJsCyclesPerSec, 11)} ${(r.tsJsCyclesPerSec / r.verilatorCyclesPerSec).toFixed(2).padStart(18)}x   ${r.outputsEqual ? 'yes' : 'NO'}`,
      );
    }
  }
  if (results.some((r) => !r.outputsEqual)) process.exitCode = 1;
}

if (process.argv[1] && /simBench\.ts$/.test(process.argv[1])) await main();
