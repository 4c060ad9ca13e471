/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator, fed a batch of requests by the stream driver at the rate the pipeline accepts them
 * (one per cycle, one per k cycles for the basic filter), answers collected in order.
 */
import { StreamSession } from '../../verify/session.js';
import { BloomModel } from './model.js';
import { buildBloom } from './rtl.js';
import { bloomProtocol } from './stream.js';
import type { BloomDerived } from './types.js';

export interface SetEngine {
  insertAll(keys: readonly bigint[]): void;
  /** How many of the keys the filter reports. */
  countHits(keys: readonly bigint[]): number;
  clear(): void;
}

export function modelEngine(c: BloomDerived): SetEngine {
  const m = new BloomModel(c);
  return {
    insertAll: (keys) => keys.forEach((k) => m.insert(k)),
    countHits: (keys) => keys.reduce((n, k) => n + (m.query(k) ? 1 : 0), 0),
    clear: () => m.clear(),
  };
}

export function simEngine(c: BloomDerived): SetEngine {
  const s = new StreamSession(buildBloom(c), bloomProtocol(c));
  const stream = (op: string, keys: readonly bigint[]): number =>
    s.run(keys.map((key) => ({ op, key }))).reduce((n, r) => n + Number(r.hit! & 1n), 0);
  return {
    insertAll: (keys) => void stream('insert', keys),
    countHits: (keys) => stream('query', keys),
    clear: () => void stream('clear', [0n]),
  };
}

export function engineFor(kind: 'model' | 'sim', c: BloomDerived): SetEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
