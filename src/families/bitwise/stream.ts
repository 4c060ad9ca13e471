/**
 * The bitwise pipeline as the stream verifier sees it: its protocol (hit, count and the
 * saturation flag), the reference model answering requests, the comparison of every bank's
 * block RAM with the model's counters, and the software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { keyWords, MEMBERSHIP_SEMANTICS } from '../streamKit.js';
import type {
  MemoryCheck,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
import { compileBitwise } from './fast.js';
import { BitwiseModel } from './model.js';
import { BITWISE_OP, bitwiseLatency, responseQueueDepth } from './params.js';
import { bitwiseMemoryName } from './rtl.js';
import type { BitwiseDerived } from './types.js';

export function bitwiseProtocol(c: BitwiseDerived): StreamProtocol {
  const maxDepth = Math.max(...c.levels.map((L) => L.depth));
  return {
    ops: BITWISE_OP,
    semantics: MEMBERSHIP_SEMANTICS,
    request: [],
    response: [
      { name: 'hit', port: 'out_hit', width: 1 },
      { name: 'count', port: 'out_count', width: c.countBits },
      { name: 'sat', port: 'out_sat', width: 1 },
    ],
    // A lane shard (`direct`) answers the cycle its response is formed, with no queue.
    latency: bitwiseLatency(c),
    queueDepth: c.direct ? 0 : responseQueueDepth(c),
    // The reset/clear sweep: CLEAR_DELAY + the deepest bank's words; twice that, with room to spare.
    maxStallCycles: 2 * (maxDepth + CLEAR_DELAY + 1) + 8,
  };
}

/** Every word of every bank vs the model's counters. */
export function compareBitwiseMemories(
  c: BitwiseDerived,
  model: BitwiseModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  c.levels.forEach((L, i) => {
    for (let j = 0; j < L.k; j++) {
      const name = bitwiseMemoryName(i, j);
      for (let a = 0; a < L.depth; a++) {
        checked++;
        const hw = read(name, a);
        const sw = model.word(i, j, a);
        if (hw === sw) continue;
        count++;
        if (mismatches.length < 10)
          mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
      }
    }
  });
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol. */
export class BitwiseStreamModel implements StreamModel {
  readonly model: BitwiseModel;

  constructor(readonly c: BitwiseDerived) {
    this.model = new BitwiseModel(c);
  }

  /** Insert requests since the last clear (saturated ones too: the control port's count). */
  inserted = 0;

  apply(req: StreamRequest): Record<string, bigint> {
    const m = this.model;
    const b = (x: boolean): bigint => (x ? 1n : 0n);
    if (req.op === 'insert' || req.op === 'testAndInsert') this.inserted++;
    else if (req.op === 'clear') this.inserted = 0;
    switch (req.op) {
      case 'query': {
        const r = m.count(req.key);
        return { hit: b(r.hit), count: r.count, sat: b(r.sat) };
      }
      case 'testAndInsert': {
        const r = m.testAndInsert(req.key);
        return { hit: b(r.hit), count: r.count, sat: b(r.sat) };
      }
      case 'insert':
        return { hit: 0n, count: 0n, sat: b(!m.insert(req.key)) };
      case 'clear':
        m.clear();
        return { hit: 0n, count: 0n, sat: 0n };
      default:
        throw new Error(`bitwise: unknown op '${req.op}'`);
    }
  }

  agingEvents(): number {
    return 0;
  }

  /** Insert requests since the last clear (the control port's count). */
  occupancy(): number {
    return this.inserted;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareBitwiseMemories(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every level's banks of counters
 * from their block RAM words (lane j of a word in bits [j·w_i, (j + 1)·w_i)), the insert requests
 * since the last clear from the port's occupancy count.
 */
export function bitwiseFromSnapshot(c: BitwiseDerived, s: SnapshotView): BitwiseStreamModel {
  const sm = new BitwiseStreamModel(c);
  c.levels.forEach((L, i) => {
    const mask = (1n << BigInt(L.width)) - 1n;
    for (let j = 0; j < L.k; j++) {
      const cells = sm.model.counters[i]![j]!;
      for (let a = 0; a < L.depth; a++) {
        const w = s.read(bitwiseMemoryName(i, j), a);
        for (let lane = 0; lane < L.lanes; lane++)
          cells[a * L.lanes + lane] = Number((w >> BigInt(lane * L.width)) & mask);
      }
    }
  });
  sm.inserted = Number(s.counter('occupancy'));
  return sm;
}

/**
 * The software filter: the compiled filter (./fast.ts, WebAssembly) where it applies (Σ w_i ≤ 53,
 * so a count is an exact double), else the reference model; keys placed in its memory as 32-bit words.
 */
export function bitwiseSoftware(c: BitwiseDerived): SoftwareFilter {
  let cached: { keys: readonly bigint[]; words: Uint32Array } | null = null;
  const wordsOf = (keys: readonly bigint[]): Uint32Array => {
    if (cached?.keys !== keys) cached = { keys, words: keyWords(keys, c.keyBits) };
    return cached.words;
  };
  const compiled = compileBitwise(c) !== null;
  return {
    engine: compiled ? 'compiled' : 'reference',
    keys: compiled ? 1_000_000 : 100_000,
    fresh(keys) {
      const f = compileBitwise(c);
      if (f) {
        f.keySpace(keys.length).set(wordsOf(keys));
        return {
          insert: (i) => f.insert(i),
          query: (i) => f.count(i),
          testAndInsert: (i) => f.testAndInsert(i),
        };
      }
      const m = new BitwiseModel(c);
      return {
        insert: (i) => m.insert(keys[i]!),
        query: (i) => m.count(keys[i]!),
        testAndInsert: (i) => m.testAndInsert(keys[i]!),
      };
    },
  };
}
