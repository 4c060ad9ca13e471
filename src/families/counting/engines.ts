/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator run by the stream driver, one request per cycle (both are checked equal elsewhere).
 */
import { StreamSession } from '../../verify/session.js';
import { CountingModel } from './model.js';
import { buildCounting } from './rtl.js';
import { countingProtocol } from './stream.js';
import type { CountingDerived } from './types.js';

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
  const s = new StreamSession(buildCounting(c), countingProtocol(c));
  const run = (op: string, keys: readonly bigint[]) => s.run(keys.map((key) => ({ op, key })));
  return {
    insertAll: (keys) => void run('insert', keys),
    countAll: (keys) => run('query', keys).map((r) => Number(r.count)),
  };
}

export function engineFor(kind: 'model' | 'sim', c: CountingDerived): CountEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
