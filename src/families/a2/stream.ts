/**
 * The A² pipeline as the stream verifier sees it: its protocol, the reference model answering
 * requests, the comparison of the block RAMs with the model's halves, and the software filter the
 * bench times.
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
import { compileA2 } from './fast.js';
import { A2Model, SETS } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { memoryName } from './rtl.js';
import type { A2Derived } from './types.js';

export function a2Protocol(c: A2Derived): StreamProtocol {
  return {
    ops: OP,
    semantics: MEMBERSHIP_SEMANTICS,
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
  const memories = [...model.liveSets()].flatMap((set) =>
    Array.from({ length: c.k }, (_, u) => ({
      name: memoryName(set, u),
      depth: c.depth,
      word: (a: number) => model.word(set, u, a, c.wordBits),
    })),
  );
  return compareWords(memories, read);
}

/** The reference model behind the stream protocol. */
export class A2StreamModel implements StreamModel {
  readonly model: A2Model;
  private readonly handlers;

  constructor(readonly c: A2Derived) {
    this.model = new A2Model(c);
    this.handlers = membershipHandlers(this.model);
  }

  apply(req: StreamRequest): { hit: bigint } {
    return answer('a2', this.handlers, req);
  }

  agingEvents(): number {
    return this.model.swaps;
  }

  /** Real inserts into the active half since the last swap (0..κ−1): the hardware's `count`. */
  occupancy(): number {
    return this.model.count;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareA2Memories(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline, the background flush done): the
 * active set from `act` (one-hot, bit s: set s), the count of real inserts into the active half
 * from `count`, the active and standby sets' bits from their block RAMs. The flushed set is empty
 * to the model (the hardware has flushed it once the flush is done, and it is not read before it
 * becomes the active set). The model's swap and real-insert totals start at 0.
 */
export function a2FromSnapshot(c: A2Derived, s: SnapshotView): A2StreamModel {
  const sm = new A2StreamModel(c);
  const m = sm.model;
  const act = s.reg('act');
  const sets = Array.from({ length: SETS }, (_, set) => set).filter((set) => ((act >> BigInt(set)) & 1n) === 1n);
  if (sets.length !== 1) throw new Error(`a2 snapshot: act 0b${act.toString(2)} is not one-hot`);
  m.act = sets[0]!;
  m.count = Number(s.reg('count'));
  if (m.count >= c.kappa) throw new Error(`a2 snapshot: count ${m.count} is not below kappa (${c.kappa})`);
  for (const set of m.liveSets())
    for (let u = 0; u < c.k; u++)
      for (let a = 0; a < c.depth; a++) m.setWord(set, u, a, c.wordBits, s.read(memoryName(set, u), a));
  return sm;
}

/** The software filter: the compiled filter (./fast.ts), keys handed over as 32-bit words. */
export function a2Software(c: A2Derived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileA2(c));
}
