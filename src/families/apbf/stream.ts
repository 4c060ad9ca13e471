/**
 * The APBF/APBBF pipeline as the stream verifier sees it: its protocol, the reference model
 * answering requests, the comparison of the block RAMs with the model's bit arrays, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compileApbf } from './fast.js';
import { ApbfModel } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { memoryName } from './rtl.js';
import type { ApbfDerived } from './types.js';

export function apbfProtocol(c: ApbfDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: {
      query: { queries: true },
      insert: { inserts: true },
      testAndInsert: { queries: true, inserts: true },
      tick: { ages: true },
      clear: { clears: true },
    },
    request: [],
    response: [{ name: 'hit', port: 'out_hit', width: 1 }],
    latency: LATENCY,
    queueDepth: RESPONSE_QUEUE,
    // The reset/clear sweep (CLEAR_DELAY + depth cycles), or a tick waiting for the spare it
    // reuses to finish clearing (at most as long): twice that, with room to spare.
    maxStallCycles: 2 * (c.columnDepth + CLEAR_DELAY + 1) + 8,
  };
}

/** Bank-by-bank comparison of the design's block RAMs with the model's live segments. */
export function compareApbfMemories(
  c: ApbfDerived,
  model: ApbfModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (const bank of model.liveBanks()) {
    for (let j = 0; j < c.bitsPerBlock; j++) {
      const name = memoryName(bank, j, c.bitsPerBlock);
      for (let a = 0; a < c.columnDepth; a++) {
        checked++;
        const hw = read(name, a);
        const sw = model.word(bank, j, a, c.wordBits);
        if (hw === sw) continue;
        count++;
        if (mismatches.length < 10)
          mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
      }
    }
  }
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol. */
export class ApbfStreamModel implements StreamModel {
  readonly model: ApbfModel;

  constructor(readonly c: ApbfDerived) {
    this.model = new ApbfModel(c);
  }

  apply(req: StreamRequest): { hit: bigint } {
    const m = this.model;
    let hit = false;
    switch (req.op) {
      case 'query':
        hit = m.query(req.key);
        break;
      case 'insert':
        m.insert(req.key);
        break;
      case 'testAndInsert':
        hit = m.testAndInsert(req.key);
        break;
      case 'tick':
        m.tick();
        break;
      case 'clear':
        m.clear();
        break;
      default:
        throw new Error(`apbf: unknown op '${req.op}'`);
    }
    return { hit: hit ? 1n : 0n };
  }

  agingEvents(): number {
    return this.model.shifts;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareApbfMemories(this.c, this.model, read);
  }
}

/** Keys as little-endian 32-bit words, kw words each (what a packet parser hands over). */
function keyWords(keys: readonly bigint[], keyBits: number): Uint32Array {
  const kw = Math.ceil(keyBits / 32);
  const out = new Uint32Array(keys.length * kw);
  keys.forEach((key, i) => {
    let v = key;
    for (let j = 0; j < kw; j++) {
      out[i * kw + j] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
  });
  return out;
}

/**
 * The software filter: the compiled filter (./fast.ts: the model's operations generated as
 * JavaScript for this config) where the per-bank hash fits 32 bits, else the reference model; keys
 * handed over as 32-bit words (the allocation-free path).
 */
export function apbfSoftware(c: ApbfDerived): SoftwareFilter {
  const kw = Math.ceil(c.keyBits / 32);
  let cached: { keys: readonly bigint[]; words: Uint32Array } | null = null;
  const wordsOf = (keys: readonly bigint[]): Uint32Array => {
    if (cached?.keys !== keys) cached = { keys, words: keyWords(keys, c.keyBits) };
    return cached.words;
  };
  return {
    engine: compileApbf(c) ? 'compiled' : 'reference',
    keys: 1_000_000,
    fresh(keys) {
      const words = wordsOf(keys);
      const f = compileApbf(c);
      if (f)
        return {
          insert: (i) => f.insert(words, i * kw),
          query: (i) => f.query(words, i * kw),
          testAndInsert: (i) => f.testAndInsert(words, i * kw),
        };
      const m = new ApbfModel(c);
      const key = new Uint32Array(kw);
      const load = (i: number): Uint32Array => {
        for (let j = 0; j < kw; j++) key[j] = words[i * kw + j]!;
        return key;
      };
      return {
        insert: (i) => m.insertWords(load(i)),
        query: (i) => m.queryWords(load(i)),
        testAndInsert: (i) => m.testAndInsertWords(load(i)),
      };
    },
  };
}
