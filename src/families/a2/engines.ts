/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator (one request at a time, waiting for its response; both are checked equal elsewhere).
 * The simulator's count and roles are registers, so a shadow model supplies them.
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { A2Model } from './model.js';
import { OP } from './params.js';
import { buildA2 } from './rtl.js';
import type { A2Derived } from './types.js';

export interface A2Engine {
  /** Inserts; returns whether it was a real insert (the key was not in the active half). */
  insert(key: bigint): boolean;
  query(key: bigint): boolean;
  /** Real inserts since the start. */
  realInserts(): number;
  /** Keys in the active half (real inserts since the last swap). */
  activeCount(): number;
  swaps(): number;
}

function modelEngine(c: A2Derived): A2Engine {
  const m = new A2Model(c);
  return {
    insert: (k) => {
      const before = m.realInserts;
      m.insert(k);
      return m.realInserts !== before;
    },
    query: (k) => m.query(k),
    realInserts: () => m.realInserts,
    activeCount: () => m.count,
    swaps: () => m.swaps,
  };
}

function simEngine(c: A2Derived): A2Engine {
  const sim = new CompiledSim(buildA2(c));
  const shadow = modelEngine(c);
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
      return shadow.insert(k);
    },
    query: (k) => op(OP.query, k),
    realInserts: shadow.realInserts,
    activeCount: shadow.activeCount,
    swaps: shadow.swaps,
  };
}

export function engineFor(kind: 'model' | 'sim', c: A2Derived): A2Engine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
