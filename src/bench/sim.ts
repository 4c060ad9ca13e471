/**
 * The simulator benchmark: the same design and the same stimulus on the compiled TS simulator
 * and on Verilator -O3, in one run, for the TS simulator as used (its cycle loop compiled to
 * WebAssembly) and with its cycle loop compiled to JavaScript instead. Every engine does the same
 * work per cycle: read the inputs from a preloaded buffer, evaluate, store every output into an
 * output buffer, clock edge. The output buffers are compared with Verilator's afterwards.
 */
import type { Design } from '../ir/types.js';
import { CompiledSim, type CycleEngine } from '../../sim/compiled.js';
import { benchVerilator } from '../../sim/cosim/verilator.js';

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
      // (N-lane filters: every lane's in<i>_valid and out<i>_ready, and its op.)
      else if (/^(in\d*_valid|out\d*_ready)$/.test(p.name)) buf[off] = 1;
      else if (/^in\d*_op$/.test(p.name)) buf[off] = next() % 3;
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
