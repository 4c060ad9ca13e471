/**
 * The APBF/APBBF pipeline as the stream verifier sees it: its protocol, the reference model
 * answering requests, the comparison of the block RAMs with the model's bit arrays, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { answer, compareWords, MEMBERSHIP_SEMANTICS, membershipHandlers, wordsSoftware } from '../streamKit.js';
import type {
  MemoryCheck,
  SnapshotView,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
} from '../types.js';
import { compileApbf } from './fast.js';
import { ApbfModel } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { memoryName } from './rtl.js';
import type { ApbfDerived } from './types.js';

export function apbfProtocol(c: ApbfDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: { ...MEMBERSHIP_SEMANTICS, tick: { ages: true } },
    request: [],
    response: [{ name: 'hit', port: 'out_hit', width: 1 }],
    // A lane shard (`direct`) answers from stage 8, the cycle before the response queue would.
    latency: c.direct ? LATENCY - 1 : LATENCY,
    queueDepth: c.direct ? 0 : RESPONSE_QUEUE,
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
  const memories = [...model.liveBanks()].flatMap((bank) =>
    Array.from({ length: c.bitsPerBlock }, (_, j) => ({
      name: memoryName(bank, j, c.bitsPerBlock),
      depth: c.columnDepth,
      word: (a: number) => model.word(bank, j, a, c.wordBits),
    })),
  );
  return compareWords(memories, read);
}

/** The reference model behind the stream protocol. */
export class ApbfStreamModel implements StreamModel {
  readonly model: ApbfModel;
  private readonly handlers;

  constructor(readonly c: ApbfDerived) {
    this.model = new ApbfModel(c);
    const m = this.model;
    this.handlers = { ...membershipHandlers(m), tick: () => m.tick() };
  }

  apply(req: StreamRequest): { hit: bigint } {
    return answer('apbf', this.handlers, req);
  }

  agingEvents(): number {
    return this.model.shifts;
  }

  /** Inserts into the newest generation (0..g): the hardware's `gen_count`. */
  occupancy(): number {
    return this.model.count;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareApbfMemories(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline, background clears done): the
 * live banks' bits from the block RAMs; the base index from `write_mask` (the k newest segments'
 * banks, base..base+k−1 mod P: base is where the run of ones starts); the generation count from
 * `gen_count` (the count of the model, 0..g: g means the next insert shifts). Banks outside the
 * window are empty to the model (a spare being cleared is logically empty: the hardware finishes
 * the clear before the bank comes back). The model's `inserted` (the paper's n, not kept in
 * hardware) starts at 0.
 */
export function apbfFromSnapshot(c: ApbfDerived, s: SnapshotView): ApbfStreamModel {
  const sm = new ApbfStreamModel(c);
  const m = sm.model;
  const P = m.layout.banks;
  const write = s.reg('write_mask');
  const bit = (b: number): boolean => ((write >> BigInt(((b % P) + P) % P)) & 1n) === 1n;
  const starts = Array.from({ length: P }, (_, b) => b).filter((b) => bit(b) && !bit(b - 1));
  if (starts.length !== 1)
    throw new Error(`apbf snapshot: write_mask 0x${write.toString(16)} is not one run of k banks`);
  m.base = starts[0]!;
  m.count = Number(s.reg('gen_count'));
  for (const bank of m.liveBanks())
    for (let j = 0; j < c.bitsPerBlock; j++)
      for (let a = 0; a < c.columnDepth; a++)
        m.setWord(bank, j, a, c.wordBits, s.read(memoryName(bank, j, c.bitsPerBlock), a));
  return sm;
}

/**
 * The software filter: the compiled filter (./fast.ts: the model's operations generated as
 * JavaScript for this config) where the per-bank hash fits 32 bits, else the reference model; keys
 * handed over as 32-bit words (the allocation-free path).
 */
export function apbfSoftware(c: ApbfDerived): SoftwareFilter {
  const kw = Math.ceil(c.keyBits / 32);
  return wordsSoftware(c.keyBits, compileApbf(c) ? 'compiled' : 'reference', () => {
    const f = compileApbf(c);
    if (f) return f;
    const m = new ApbfModel(c);
    const key = new Uint32Array(kw);
    const load = (words: Uint32Array, off: number): Uint32Array => {
      for (let j = 0; j < kw; j++) key[j] = words[off + j]!;
      return key;
    };
    return {
      insert: (words, off) => m.insertWords(load(words, off)),
      query: (words, off) => m.queryWords(load(words, off)),
      testAndInsert: (words, off) => m.testAndInsertWords(load(words, off)),
    };
  });
}
