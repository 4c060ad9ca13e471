/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator, streamed one request per cycle (both are checked equal elsewhere). Both answer a
 * batch of ops in order and report each bank's cells.
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { StableModel } from './model.js';
import { OP } from './params.js';
import { buildStable, stableMemoryName } from './rtl.js';
import type { StableDerived } from './types.js';

export type EngineOp = 'insert' | 'query' | 'testAndInsert';

export interface StableEngine {
  /** Runs the ops in order; the answers of every op (false for inserts). */
  run(ops: readonly { op: EngineOp; key: bigint }[]): boolean[];
  /** Fraction of zero cells in each bank. */
  bankZeros(): number[];
}

export function modelEngine(c: StableDerived): StableEngine {
  const m = new StableModel(c);
  return {
    run: (ops) =>
      ops.map(({ op, key }) => {
        if (op === 'insert') {
          m.insert(key);
          return false;
        }
        return op === 'query' ? m.query(key) : m.testAndInsert(key);
      }),
    bankZeros: () => m.bankZeroFractions(),
  };
}

export function simEngine(c: StableDerived): StableEngine {
  const sim = new CompiledSim(buildStable(c));
  sim.poke('out_ready', 1);
  sim.poke('in_valid', 0);
  while (sim.peek('in_ready') === 0n) sim.step();
  return {
    run: (ops) => {
      const out: boolean[] = [];
      let next = 0;
      while (out.length < ops.length) {
        const req = next < ops.length ? ops[next]! : null;
        sim.poke('in_valid', req ? 1 : 0);
        if (req) {
          sim.poke('in_op', OP[req.op]);
          sim.poke('in_key', req.key);
        }
        if (sim.peek('out_valid') === 1n) out.push(sim.peek('out_hit') === 1n);
        if (req && sim.peek('in_ready') === 1n) next++;
        sim.step();
      }
      sim.poke('in_valid', 0);
      return out;
    },
    bankZeros: () =>
      Array.from({ length: c.k }, (_, bank) => {
        let zeros = 0;
        const mask = (1n << BigInt(c.d)) - 1n;
        for (let a = 0; a < c.depth; a++) {
          const w = sim.readMemory(stableMemoryName(bank), a);
          for (let j = 0; j < c.cellsPerWord; j++) if (((w >> BigInt(j * c.d)) & mask) === 0n) zeros++;
        }
        return zeros / c.cells;
      }),
  };
}

export function engineFor(kind: 'model' | 'sim', c: StableDerived): StableEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
