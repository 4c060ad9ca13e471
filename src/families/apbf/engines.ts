/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator (one request at a time, waiting for its response; both are checked equal elsewhere).
 */
import { buildApbf, memoryName } from './rtl.js';
import { OP } from './params.js';
import type { ApbfDerived } from './types.js';
import { ApbfModel } from './model.js';
import { CompiledSim } from '../../../sim/compiled.js';
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
  const sim = new CompiledSim(buildApbf(c));
  const shadow = new ApbfModel(c); // only to know the base index and count (the sim's are registers)
  sim.poke('out_ready', 1);
  while (sim.peek('in_ready') === 0n) sim.step();
  const op = (code: number, key: bigint): boolean => {
    sim.poke('in_valid', 1);
    sim.poke('in_op', code);
    sim.poke('in_key', key);
    while (sim.peek('in_ready') === 0n) sim.step();
    sim.step();
    sim.poke('in_valid', 0);
    while (sim.peek('out_valid') === 0n) sim.step();
    const hit = sim.peek('out_hit') === 1n;
    sim.step();
    return hit;
  };
  return {
    insert: (k) => {
      op(OP.insert, k);
      shadow.insert(k);
    },
    query: (k) => op(OP.query, k),
    fillRatios: () =>
      shadow.liveBanks().map((bank) => {
        let ones = 0;
        for (let j = 0; j < c.bitsPerBlock; j++) {
          for (let a = 0; a < c.columnDepth; a++) {
            let w = sim.readMemory(memoryName(bank, j, c.bitsPerBlock), a);
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
