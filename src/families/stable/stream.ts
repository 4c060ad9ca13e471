/**
 * The Stable Bloom filter pipeline as the stream verifier sees it: its protocol, the reference
 * model answering requests, the comparison of the block RAMs with the model's cells, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { answer, compareWords, MEMBERSHIP_SEMANTICS, membershipHandlers, wordsSoftware } from '../streamKit.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compileStable } from './fast.js';
import { StableModel } from './model.js';
import { LATENCY, OP, RESPONSE_QUEUE } from './params.js';
import { stableMemoryName } from './rtl.js';
import type { StableDerived } from './types.js';

export function stableProtocol(c: StableDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: MEMBERSHIP_SEMANTICS,
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
  const banks = Array.from({ length: c.k }, (_, bank) => ({
    name: stableMemoryName(bank),
    depth: c.depth,
    word: (a: number) => model.word(bank, a),
  }));
  return compareWords(banks, read);
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
    return compareStableMemories(this.c, this.model, read);
  }
}

/** The software filter: the compiled filter (./fast.ts), keys handed over as 32-bit words. */
export function stableSoftware(c: StableDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileStable(c));
}
