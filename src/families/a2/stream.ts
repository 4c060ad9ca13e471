/**
 * The A² pipeline as the stream verifier sees it: its protocol, the reference model answering
 * requests, the comparison of the block RAMs with the model's halves, and the software filter the
 * bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compileA2 } from './fast.js';
import { A2Model } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { memoryName } from './rtl.js';
import type { A2Derived } from './types.js';

export function a2Protocol(c: A2Derived): StreamProtocol {
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
    // The reset/clear sweep (CLEAR_DELAY + depth cycles, in_ready low two cycles longer): twice
    // that, with room to spare. A swap never stalls.
    maxStallCycles: 2 * (c.depth + CLEAR_DELAY + 1) + 8,
  };
}

/** The active and standby sets' block RAMs against the model's halves (the flushed set is in flux). */
export function compareA2Memories(
  c: A2Derived,
  model: A2Model,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (const set of model.liveSets()) {
    for (let u = 0; u < c.k; u++) {
      const name = memoryName(set, u);
      for (let a = 0; a < c.depth; a++) {
        checked++;
        const hw = read(name, a);
        const sw = model.word(set, u, a, c.wordBits);
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
export class A2StreamModel implements StreamModel {
  readonly model: A2Model;

  constructor(readonly c: A2Derived) {
    this.model = new A2Model(c);
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
        throw new Error(`a2: unknown op '${req.op}'`);
    }
    return { hit: hit ? 1n : 0n };
  }

  agingEvents(): number {
    return this.model.swaps;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareA2Memories(this.c, this.model, read);
  }
}

/** Keys as little-endian 32-bit words, kw words each (what a packet parser hands over). */
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
export function a2Software(c: A2Derived): SoftwareFilter {
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
      const f = compileA2(c);
      return {
        insert: (i) => f.insert(words, i * kw),
        query: (i) => f.query(words, i * kw),
        testAndInsert: (i) => f.testAndInsert(words, i * kw),
      };
    },
  };
}
