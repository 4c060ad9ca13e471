/**
 * The compiled cycle-accurate simulator: runs the JavaScript that sim/codegen.ts generates.
 * Set BLOOMFORGE_DUMP_JS=DIR to write the generated source of every design to DIR.
 *
 * Cycle protocol (the same in every engine, Verilator and Icarus included): set the inputs,
 * let the combinational logic settle, read the outputs, then apply one rising clock edge.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { Design } from '../src/ir/types.js';
import { generate, layoutOf, OPTIMIZED_BYTECODE_LIMIT, words, type Layout } from './codegen.js';
import type { Engine } from './engine.js';
import { fromWords, toWords } from './words.js';

// The generated code sees every word array as Int32Array (see sim/codegen.ts); the class keeps
// Uint32Array views of the same buffers for its callers.
type RunFn = (
  V: Int32Array,
  stim: Int32Array,
  stimBase: number,
  out: Uint32Array | null,
  outBase: number,
  n: number,
  stats: Float64Array,
) => void;
type SettleFn = (V: Int32Array, M: Int32Array[], T: Int32Array[], stim: Int32Array) => void;
const int32 = (a: Uint32Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, a.length);

// Generated cycle functions of mid-sized designs exceed V8's default limit for optimised
// functions (60 KB of bytecode); unoptimised they run about ten times slower. The flag is read
// whenever V8 considers optimising a function, so setting it at load time takes effect.
v8.setFlagsFromString(`--max-optimized-bytecode-size=${OPTIMIZED_BYTECODE_LIMIT}`);

/**
 * Cycles per call of the generated run function. Long batches are split so that V8 optimises
 * the function as a whole after a few calls: code optimised on stack replacement (entered in
 * the middle of a running loop) runs markedly slower (it keeps the loop's state boxed).
 */
const BATCH = 1024;

export interface SimOptions {
  /** Same-address reads during writes of 'undefined' memories return inverted data. */
  poisonCollisions?: boolean;
  /** Split the cycle into functions of about this much source (see sim/codegen.ts). */
  chunkChars?: number;
}

export class CompiledSim implements Engine {
  readonly name = 'ts-compiled';
  readonly layout: Layout;
  readonly V: Uint32Array;
  readonly M: Uint32Array[];
  /** stats[0]: same-address read-during-write events on 'undefined' memories. */
  readonly stats = new Float64Array(1);
  private readonly stim: Uint32Array;
  /** Int32Array views of V, M, the H3 tables and stim, for the generated functions. */
  private readonly Vi: Int32Array;
  private readonly Mi: Int32Array[];
  private readonly Ti: Int32Array[];
  private readonly stimI: Int32Array;
  private readonly runFn: RunFn;
  private readonly settleFn: SettleFn;
  private readonly settleOutputsFn: SettleFn;
  private readonly outputCone: ReadonlySet<number>;
  private readonly poison: boolean;
  /** Functions one clock cycle runs (1: a single loop with the state in locals). */
  readonly chunks: number;
  private settled = false;
  /** The output ports' cone is settled (implied by `settled`). */
  private outputsSettled = false;
  cycle = 0;

  constructor(
    readonly design: Design,
    opts: SimOptions = {},
  ) {
    this.layout = layoutOf(design);
    this.poison = opts.poisonCollisions ?? false;
    const src = generate(design, this.layout, { poison: this.poison, chunkChars: opts.chunkChars });
    const dump = process.env.BLOOMFORGE_DUMP_JS;
    if (dump) {
      fs.mkdirSync(dump, { recursive: true });
      fs.writeFileSync(path.join(dump, `${design.name}.settle.js`), src.settle);
      fs.writeFileSync(path.join(dump, `${design.name}.settleOutputs.js`), src.settleOutputs);
      fs.writeFileSync(path.join(dump, `${design.name}.run.js`), src.run);
    }
    this.chunks = src.chunks;
    const factory = new Function('M', 'T', `'use strict';\n${src.run}`) as (M: Int32Array[], T: Int32Array[]) => RunFn;
    this.settleFn = new Function('V', 'M', 'T', 'stim', `'use strict';\n${src.settle}`) as SettleFn;
    this.settleOutputsFn = new Function('V', 'M', 'T', 'stim', `'use strict';\n${src.settleOutputs}`) as SettleFn;
    this.outputCone = src.outputCone;
    this.V = new Uint32Array(this.layout.size);
    this.stim = new Uint32Array(Math.max(1, this.layout.inputWords));
    this.M = this.layout.memories.map((m) => new Uint32Array(m.depth * words(m.width)));
    this.Vi = int32(this.V);
    this.Mi = this.M.map(int32);
    this.Ti = this.layout.tables.map(int32);
    this.stimI = int32(this.stim);
    this.runFn = factory(this.Mi, this.Ti);
    this.reset();
  }

  /** Power-up state: registers at their reset values, memories zero (or their init), inputs zero. */
  reset(): void {
    this.V.fill(0);
    this.layout.memories.forEach((m, k) => {
      const M = this.M[k]!;
      M.fill(0);
      const n = words(m.width);
      m.init?.forEach((v, i) => M.set(toWords(v, m.width), i * n));
    });
    this.stim.fill(0);
    for (const c of this.design.cells) {
      if (c.kind === 'reg')
        this.V.set(toWords(c.resetValue, this.design.nets[c.out]!.width), this.layout.offset[c.out]!);
    }
    this.cycle = 0;
    this.settled = false;
    this.outputsSettled = false;
  }

  private portIndex(name: string): number {
    const i = this.design.inputs.findIndex((p) => p.name === name);
    if (i < 0) throw new Error(`design '${this.design.name}' has no input '${name}'`);
    return i;
  }

  poke(name: string, value: bigint | number): void {
    const k = this.portIndex(name);
    const w = this.design.nets[this.design.inputs[k]!.net]!.width;
    this.stim.set(toWords(BigInt(value), w), this.layout.inputOffsets[k]!);
    this.settled = false;
    this.outputsSettled = false;
  }

  /** Value of any net by name (ports, registers, named wires) after settling. */
  peek(name: string): bigint {
    const port = this.design.outputs.find((p) => p.name === name);
    const net = port ? this.design.nets[port.net] : this.design.nets.find((n) => n.name === name);
    if (!net) throw new Error(`design '${this.design.name}' has no signal '${name}'`);
    if (this.outputCone.has(net.id)) this.settleOutputs();
    else this.settle();
    return fromWords(this.V, this.layout.offset[net.id]!, net.width);
  }

  /** Evaluates every combinational net for the current inputs and state. */
  settle(): void {
    if (!this.settled) this.settleFn(this.Vi, this.Mi, this.Ti, this.stimI);
    this.settled = true;
    this.outputsSettled = true;
  }

  /** Evaluates only what the output ports depend on (what a test bench reads every cycle). */
  settleOutputs(): void {
    if (!this.outputsSettled) this.settleOutputsFn(this.Vi, this.Mi, this.Ti, this.stimI);
    this.outputsSettled = true;
  }

  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.runFn(this.Vi, this.stimI, 0, null, 0, 1, this.stats);
    }
    this.cycle += n;
    this.settled = false;
    this.outputsSettled = false;
  }

  /**
   * Run `n` cycles from a packed stimulus (n rows of layout.inputWords words) and write the
   * outputs of every cycle into `out` (n rows of layout.outputWords words) when given.
   */
  runBatch(stim: Uint32Array, n: number, out: Uint32Array | null = null): void {
    const { inputWords, outputWords } = this.layout;
    const si = int32(stim);
    for (let at = 0; at < n; at += BATCH) {
      this.runFn(this.Vi, si, at * inputWords, out, at * outputWords, Math.min(BATCH, n - at), this.stats);
    }
    if (n > 0) this.stim.set(stim.subarray((n - 1) * this.layout.inputWords, n * this.layout.inputWords));
    this.cycle += n;
    this.settled = false;
    this.outputsSettled = false;
  }

  /** Word `addr` of memory `name` as a bigint. */
  readMemory(name: string, addr: number): bigint {
    const k = this.layout.memories.findIndex((m) => m.name === name);
    if (k < 0) throw new Error(`design '${this.design.name}' has no memory '${name}'`);
    const m = this.layout.memories[k]!;
    return fromWords(this.M[k]!, addr * words(m.width), m.width);
  }
}
