/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator run by the stream driver (one request at a time; both are checked equal elsewhere).
 * The simulator's count and roles are registers, so a shadow model supplies them.
 */
import { StreamSession } from '../../verify/session.js';
import { A2Model } from './model.js';
import { buildA2 } from './rtl.js';
import { a2Protocol } from './stream.js';
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
  const s = new StreamSession(buildA2(c), a2Protocol(c));
  const shadow = modelEngine(c);
  const hit = (op: string, key: bigint): boolean => s.run([{ op, key }])[0]!.hit === 1n;
  return {
    insert: (k) => {
      hit('insert', k);
      return shadow.insert(k);
    },
    query: (k) => hit('query', k),
    realInserts: shadow.realInserts,
    activeCount: shadow.activeCount,
    swaps: shadow.swaps,
  };
}

export function engineFor(kind: 'model' | 'sim', c: A2Derived): A2Engine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
