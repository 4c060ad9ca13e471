/**
 * The Stable Bloom filter pipeline as the stream verifier sees it: its protocol, the reference
 * model answering requests, the comparison of the block RAMs with the model's cells, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compileStable } from './fast.js';
import { StableModel } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { stableMemoryName } from './rtl.js';
import type { StableDerived } from './types.js';

export function stableProtocol(c: StableDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: {
      query: { queries: true },
      insert: { inserts: true },
      testAndInsert: { queries: true, inserts: true },
      clear: { clears: true },
    },
    request: [],
    response: [{ name: 'hit', port: 'out_hit', width: 1 }],
    latency: LATENCY,
    queueDepth: RESPONSE_QUEUE,
    // The reset/clear sweep: CLEAR_DELAY + depth cycles and a few of the input stage.
    maxStallCycles: c.depth + CLEAR_DELAY + 8,
  };
}

/** Word-by-word comparison of the design's block RAMs with the model's cells. */
export function compareStableMemories(
  c: StableDerived,
  model: StableModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (let bank = 0; bank < c.k; bank++) {
    const name = stableMemoryName(bank);
    for (let a = 0; a < c.depth; a++) {
      checked++;
      const hw = read(name, a);
      const sw = model.word(bank, a);
      if (hw === sw) continue;
      count++;
      if (mismatches.length < 10)
        mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
    }
  }
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol. */
export class StableStreamModel implements StreamModel {
  readonly model: StableModel;

  constructor(readonly c: StableDerived) {
    this.model = new StableModel(c);
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
      case 'clear':
        m.clear();
        break;
      default:
        throw new Error(`stable: unknown op '${req.op}'`);
    }
    return { hit: hit ? 1n : 0n };
  }

  agingEvents(): number {
    return this.model.decrementRounds;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareStableMemories(this.c, this.model, read);
  }
}

/** Keys as little-endian 32-bit words, kw words each. */
export function keyWords(keys: readonly bigint[], keyBits: number): Uint32Array {
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

/** The software filter: the compiled filter (./fast.ts), keys handed over as 32-bit words. */
export function stableSoftware(c: StableDerived): SoftwareFilter {
  const kw = Math.ceil(c.keyBits / 32);
  let cached: { keys: readonly bigint[]; words: Uint32Array } | null = null;
  const wordsOf = (keys: readonly bigint[]): Uint32Array => {
    if (cached?.keys !== keys) cached = { keys, words: keyWords(keys, c.keyBits) };
    return cached.words;
  };
  return {
    engine: 'compiled',
    keys: 1_000_000,
    fresh(keys) {
      const words = wordsOf(keys);
      const f = compileStable(c);
      return {
        insert: (i) => f.insert(words, i * kw),
        query: (i) => f.query(words, i * kw),
        testAndInsert: (i) => f.testAndInsert(words, i * kw),
      };
    },
  };
}
