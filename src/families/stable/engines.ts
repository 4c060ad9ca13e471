/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator run by the stream driver (both are checked equal elsewhere). Both answer a batch of
 * ops in order and report each bank's cells.
 */
import { StreamSession } from '../../verify/session.js';
import { StableModel } from './model.js';
import { stableProtocol } from './stream.js';
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
  const s = new StreamSession(buildStable(c), stableProtocol(c));
  return {
    run: (ops) => s.run(ops).map((r) => r.hit === 1n),
    bankZeros: () =>
      Array.from({ length: c.k }, (_, bank) => {
        let zeros = 0;
        const mask = (1n << BigInt(c.d)) - 1n;
        for (let a = 0; a < c.depth; a++) {
          const w = s.sim.readMemory(stableMemoryName(bank), a);
          for (let j = 0; j < c.cellsPerWord; j++) if (((w >> BigInt(j * c.d)) & mask) === 0n) zeros++;
        }
        return zeros / c.cells;
      }),
  };
}

export function engineFor(kind: 'model' | 'sim', c: StableDerived): StableEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
