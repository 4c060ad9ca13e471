/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator run by the stream driver (one request at a time; both are checked equal elsewhere).
 */
import { buildApbf, memoryName } from './rtl.js';
import { apbfProtocol } from './stream.js';
import type { ApbfDerived } from './types.js';
import { ApbfModel } from './model.js';
import { StreamSession } from '../../verify/session.js';
import { popcount } from '../../util/bits.js';

export interface FilterEngine {
  insert(key: bigint): void;
  query(key: bigint): boolean;
  /** Fraction of set bits of each logical segment s_0..s_{k+l-1}. */
  fillRatios(): number[];
  /** Inserts since the last shift. */
  count(): number;
}

export function modelEngine(c: ApbfDerived): FilterEngine {
  const m = new ApbfModel(c);
  return {
    insert: (k) => m.insert(k),
    query: (k) => m.query(k),
    fillRatios: () =>
      m.liveBanks().map((bank) => {
        let ones = 0;
        for (const col of m.columns[bank]!) for (const w of col) ones += popcount(w);
        return ones / c.segmentBits;
      }),
    count: () => m.count,
  };
}

export function simEngine(c: ApbfDerived): FilterEngine {
  const s = new StreamSession(buildApbf(c), apbfProtocol(c));
  const shadow = new ApbfModel(c); // only to know the base index and count (the sim's are registers)
  const hit = (op: string, key: bigint): boolean => s.run([{ op, key }])[0]!.hit === 1n;
  return {
    insert: (k) => {
      hit('insert', k);
      shadow.insert(k);
    },
    query: (k) => hit('query', k),
    fillRatios: () =>
      shadow.liveBanks().map((bank) => {
        let ones = 0;
        for (let j = 0; j < c.bitsPerBlock; j++) {
          for (let a = 0; a < c.columnDepth; a++) {
            let w = s.sim.readMemory(memoryName(bank, j, c.bitsPerBlock), a);
            while (w) {
              w &= w - 1n;
              ones++;
            }
          }
        }
        return ones / c.segmentBits;
      }),
    count: () => shadow.count,
  };
}

export function engineFor(kind: 'model' | 'sim', c: ApbfDerived): FilterEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
