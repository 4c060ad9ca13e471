/**
 * The Stable Bloom filter pipeline as the stream verifier sees it: its protocol, the reference
 * model answering requests, the comparison of the block RAMs with the model's cells, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { answer, compareWords, MEMBERSHIP_SEMANTICS, membershipHandlers, wordsSoftware } from '../streamKit.js';
import type {
  MemoryCheck,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
import { compileStable } from './fast.js';
import { StableModel } from './model.js';
import { OP, RESPONSE_QUEUE, stableLatency } from './params.js';
import { stableMemoryName } from './rtl.js';
import type { StableDerived } from './types.js';

export function stableProtocol(c: StableDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: MEMBERSHIP_SEMANTICS,
    request: [],
    response: [{ name: 'hit', port: 'out_hit', width: 1 }],
    latency: stableLatency(c),
    // A lane shard (`direct`) answers from the last stage, the cycle before the queue would.
    queueDepth: c.direct ? 0 : RESPONSE_QUEUE,
    // The reset/clear sweep: CLEAR_DELAY + depth cycles and a few of the input stage.
    maxStallCycles: c.depth + CLEAR_DELAY + 8,
  };
}

/** The reference model behind the stream protocol. */
export class StableStreamModel implements StreamModel {
  readonly model: StableModel;
  private readonly handlers;

  constructor(readonly c: StableDerived) {
    this.model = new StableModel(c);
    this.handlers = membershipHandlers(this.model);
  }

  apply(req: StreamRequest): { hit: bigint } {
    return answer('stable', this.handlers, req);
  }

  agingEvents(): number {
    return this.model.decrementRounds;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareWords(this.model.memories(stableMemoryName), read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every bank's cells from its
 * block RAM words (cell j of a word in bits [j·d, j·d + d)), the generator lanes from `rng<l>`
 * (stepped once per accepted insert as it is accepted, so the drained pipeline's lanes are the
 * model's). The model's totals (inserts, decrement rounds) start at 0.
 */
export function stableFromSnapshot(c: StableDerived, s: SnapshotView): StableStreamModel {
  const sm = new StableStreamModel(c);
  sm.model.restore(
    (bank, a) => s.read(stableMemoryName(bank), a),
    (l) => s.reg(`rng${l}`),
  );
  return sm;
}

/** The software filter: the compiled filter (./fast.ts), keys handed over as 32-bit words. */
export function stableSoftware(c: StableDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileStable(c));
}
