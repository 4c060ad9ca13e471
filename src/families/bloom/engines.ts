/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator, fed a batch of requests at the rate the pipeline accepts them (one per cycle, one
 * per k cycles for the basic filter) with out_ready high, answers collected in order.
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { toWords } from '../../../sim/words.js';
import { BloomModel } from './model.js';
import { OP } from './params.js';
import { buildBloom } from './rtl.js';
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
  const design = buildBloom(c);
  const sim = new CompiledSim(design);
  const L = sim.layout;
  const inAt = (name: string): number => L.inputOffsets[design.inputs.findIndex((q) => q.name === name)]!;
  const outAt = (name: string): number => L.outputOffsets[design.outputs.findIndex((q) => q.name === name)]!;
  const [pValid, pOp, pKey, pReady] = ['in_valid', 'in_op', 'in_key', 'out_ready'].map(inAt) as [
    number,
    number,
    number,
    number,
  ];
  const [qInReady, qOutValid, qHit] = ['in_ready', 'out_valid', 'out_hit'].map(outAt) as [number, number, number];
  const row = new Uint32Array(L.inputWords);
  const out = new Uint32Array(L.outputWords);
  /** Streams one op over the keys; returns the number of hits. */
  const stream = (op: number, keys: readonly bigint[]): number => {
    let sent = 0;
    let got = 0;
    let hits = 0;
    while (got < keys.length) {
      row.fill(0);
      row[pReady] = 1;
      if (sent < keys.length) {
        row[pValid] = 1;
        row[pOp] = op;
        row.set(toWords(keys[sent]!, c.keyBits), pKey);
      }
      sim.pokeRow(row);
      sim.peekRow(out);
      if (sent < keys.length && (out[qInReady]! & 1) === 1) sent++;
      if ((out[qOutValid]! & 1) === 1) {
        got++;
        hits += out[qHit]! & 1;
      }
      sim.step();
    }
    return hits;
  };
  return {
    insertAll: (keys) => void stream(OP.insert, keys),
    countHits: (keys) => stream(OP.query, keys),
    clear: () => void stream(OP.clear, [0n]),
  };
}

export function engineFor(kind: 'model' | 'sim', c: BloomDerived): SetEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
