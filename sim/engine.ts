/** What every in-process simulation engine offers (compiled simulator, reference interpreter). */
import type { Design } from '../src/ir/types.js';

export interface Engine {
  readonly name: string;
  readonly design: Design;
  reset(): void;
  poke(name: string, value: bigint | number): void;
  peek(name: string): bigint;
  step(n?: number): void;
  readMemory(name: string, addr: number): bigint;
}

/** Per-cycle input values, one row per cycle, in the design's input order. */
export type Stimulus = bigint[][];
/** Per-cycle output values, one row per cycle, in the design's output order. */
export type OutputTrace = bigint[][];

/** Drive `stim` into an engine from power-up; return every output of every cycle (pre-edge). */
export function runTrace(e: Engine, stim: Stimulus): OutputTrace {
  e.reset();
  const out: OutputTrace = [];
  for (const row of stim) {
    e.design.inputs.forEach((p, i) => e.poke(p.name, row[i]!));
    out.push(e.design.outputs.map((p) => e.peek(p.name)));
    e.step();
  }
  return out;
}
