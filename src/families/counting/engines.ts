/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator fed one request per cycle (out_ready high; both are checked equal elsewhere).
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { CountingModel } from './model.js';
import { OP } from './params.js';
import { buildCounting } from './rtl.js';
import type { CountingDerived } from './types.js';

export interface StreamResponse {
  hit: number;
  count: number;
  overflow: number;
  underflow: number;
}

/**
 * Sends the ops to a pipeline in the simulator, one per cycle while in_ready is high (out_ready
 * always high), and returns every response in order. Waits for the power-up sweep first.
 */
export function streamOps(
  sim: CompiledSim,
  ops: readonly { op: number; key: bigint }[],
  idleLimit = 100_000,
): StreamResponse[] {
  const out: StreamResponse[] = [];
  sim.poke('out_ready', 1);
  sim.poke('in_valid', 0);
  let i = 0;
  let idle = 0;
  while (out.length < ops.length) {
    const send = i < ops.length;
    if (send) {
      sim.poke('in_valid', 1);
      sim.poke('in_op', ops[i]!.op);
      sim.poke('in_key', ops[i]!.key);
    } else sim.poke('in_valid', 0);
    const accepted = send && sim.peek('in_ready') === 1n;
    if (accepted) i++;
    const valid = sim.peek('out_valid') === 1n;
    if (valid)
      out.push({
        hit: Number(sim.peek('out_hit')),
        count: Number(sim.peek('out_count')),
        overflow: Number(sim.peek('out_overflow')),
        underflow: Number(sim.peek('out_underflow')),
      });
    idle = accepted || valid ? 0 : idle + 1;
    if (idle > idleLimit) throw new Error(`streamOps: no progress for ${idleLimit} cycles`);
    sim.step();
  }
  sim.poke('in_valid', 0);
  return out;
}

/** A counting filter that inserts a stream of keys and answers count queries. */
export interface CountEngine {
  insertAll(keys: readonly bigint[]): void;
  countAll(keys: readonly bigint[]): number[];
}

export function modelEngine(c: CountingDerived): CountEngine {
  const m = new CountingModel(c);
  return {
    insertAll: (keys) => keys.forEach((k) => m.insert(k)),
    countAll: (keys) => keys.map((k) => m.query(k)),
  };
}

export function simEngine(c: CountingDerived): CountEngine {
  const sim = new CompiledSim(buildCounting(c));
  return {
    insertAll: (keys) =>
      void streamOps(
        sim,
        keys.map((key) => ({ op: OP.insert, key })),
      ),
    countAll: (keys) =>
      streamOps(
        sim,
        keys.map((key) => ({ op: OP.query, key })),
      ).map((r) => r.count),
  };
}

export function engineFor(kind: 'model' | 'sim', c: CountingDerived): CountEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
