/**
 * The simulator benchmark: the same design and the same stimulus on the compiled TS simulator
 * and on Verilator (built as `BENCH_VARIANT` of ./verilatorFlags.ts says: the fastest build measured), in one run, for the TS simulator as used (its cycle loop compiled to
 * WebAssembly) and with its cycle loop compiled to JavaScript instead. Every engine does the same
 * work per cycle: read the inputs from a preloaded buffer, evaluate, store every output into an
 * output buffer, clock edge. The output buffers are compared with Verilator's afterwards.
 */
import type { Design } from '../ir/types.js';
import { CompiledSim } from '../../sim/compiled.js';
import { benchVerilator, type VerilatorVariant } from '../../sim/cosim/verilator.js';
import { median } from '../util/stats.js';
import { BENCH_VARIANT, variantByName, type NamedVariant } from './verilatorFlags.js';

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
 * compiled the generated code) and a reset; the outputs land in `out`, whose pages are touched
 * before the clock starts: the first write to each page of a fresh buffer faults it in, which
 * made the first timed run of a process about 30 % slow (apbf_k4_l3: 6.0 against 8.6 M
 * cycles/s; Verilator's harness zero-fills its output buffer before timing too).
 */
export function timeRunBatch(sim: CompiledSim, stim: Uint32Array, cycles: number, out: Uint32Array): number {
  sim.runBatch(stim, Math.min(cycles, 200_000), out);
  sim.reset();
  out.fill(0);
  const t0 = process.hrtime.bigint();
  sim.runBatch(stim, cycles, out);
  return cycles / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** Whether `got` equals the first `got.length` words of `reference`. */
function sameOutputs(got: Uint32Array, reference: Uint32Array): boolean {
  if (reference.length < got.length) return false;
  for (let i = 0; i < got.length; i++) if (got[i] !== reference[i]) return false;
  return true;
}

export interface SimBenchResult {
  design: string;
  cycles: number;
  /** The TS simulator as used everywhere (its cycle loop compiled to WebAssembly): the best rep. */
  tsCyclesPerSec: number;
  /** The same with the cycle loop compiled to JavaScript (`engine: 'js'`), for comparison. */
  tsJsCyclesPerSec: number;
  verilatorCyclesPerSec: number;
  ratio: number;
  outputsEqual: boolean;
  /** Cycles/s of every repetition, in the order run (the figures above are each engine's best). */
  reps: { ts: number[]; tsJs: number[]; verilator: number[] };
}

/**
 * Cycles/s of the TS simulator (both cycle loops) and of Verilator on one design and stimulus.
 * Each engine runs `reps` times, the engines interleaved in each round, and its best rate counts:
 * the machine's speed drifts (a cloud VM; the same build of one design measured 4.6 and 7.3 M
 * cycles/s in two processes back to back), and the best of several runs is the undisturbed
 * speed, for both engines alike (each TS run on a freshly compiled simulator, each Verilator run
 * in a new process). Every run's outputs are compared with Verilator's.
 * `variant`: the Verilator build (default: the benches' own, `BENCH_VARIANT`).
 */
export async function simBench(
  d: Design,
  cycles: number,
  variant: VerilatorVariant = variantByName(BENCH_VARIANT).variant,
  reps = 3,
): Promise<SimBenchResult> {
  const stim = benchStimulus(d, cycles);
  const rates = { ts: [] as number[], tsJs: [] as number[], verilator: [] as number[] };
  let outputsEqual = true;
  for (let r = 0; r < reps; r++) {
    const vl = await benchVerilator(d, stim, cycles, variant);
    rates.verilator.push(vl.cyclesPerSec);
    for (const engine of ['wasm', 'js'] as const) {
      // A fresh simulator each time: some instances ran slower than others for their whole life
      // (bitwise_l3_w448: 0.9 against 1.9 M cycles/s), so the best of several covers them too.
      const sim = new CompiledSim(d, { engine });
      const out = new Uint32Array(cycles * sim.layout.outputWords);
      (engine === 'wasm' ? rates.ts : rates.tsJs).push(timeRunBatch(sim, stim, cycles, out));
      outputsEqual &&= sameOutputs(out, vl.out);
    }
  }
  const best = (xs: number[]): number => Math.max(...xs);
  return {
    design: d.name,
    cycles,
    tsCyclesPerSec: best(rates.ts),
    tsJsCyclesPerSec: best(rates.tsJs),
    verilatorCyclesPerSec: best(rates.verilator),
    ratio: best(rates.ts) / best(rates.verilator),
    outputsEqual,
    reps: rates,
  };
}

export interface VariantTiming {
  variant: string;
  /** Cycles/s of each repetition, in the order run. */
  runs: number[];
  median: number;
  /** Every repetition's outputs equal the default variant's. */
  outputsEqual: boolean;
}

export interface FlagsResult {
  design: string;
  cycles: number;
  timings: VariantTiming[];
}

/**
 * Every variant on one design and one stimulus, `reps` times, the variants interleaved in each
 * repetition (so a slow minute on the machine hits them all alike); the builds are cached.
 */
export async function timeVariants(
  d: Design,
  cycles: number,
  variants: readonly NamedVariant[],
  reps: number,
): Promise<FlagsResult> {
  const stim = benchStimulus(d, cycles);
  const runs = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const equal = new Map<string, boolean>(variants.map((v) => [v.name, true]));
  let reference: Uint32Array | null = null;
  for (let r = 0; r < reps; r++) {
    for (const v of variants) {
      const b = await benchVerilator(d, stim, cycles, v.variant);
      reference ??= b.out;
      runs.get(v.name)!.push(b.cyclesPerSec);
      if (!sameOutputs(b.out, reference)) equal.set(v.name, false);
    }
  }
  return {
    design: d.name,
    cycles,
    timings: variants.map((v) => ({
      variant: v.name,
      runs: runs.get(v.name)!,
      median: median(runs.get(v.name)!),
      outputsEqual: equal.get(v.name)!,
    })),
  };
}
