/**
 * The importance-aware Bloom filter pipeline as the stream verifier sees it: its protocol (the
 * importance request field and the `bad` response flag), the reference model answering
 * requests, the comparison of the block RAMs with the model's cells, the random importance of a
 * verification stream, and the software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { Rng } from '../../util/rng.js';
import { compareWords, MEMBERSHIP_SEMANTICS, wordsSoftware } from '../streamKit.js';
import type {
  MemoryCheck,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
import { compileIbf } from './fast.js';
import { IbfModel } from './model.js';
import { ibfLatency, OP, RESPONSE_QUEUE } from './params.js';
import { ibfMemoryName } from './rtl.js';
import type { IbfDerived } from './types.js';

export function ibfProtocol(c: IbfDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: MEMBERSHIP_SEMANTICS,
    request: [{ name: 'imp', port: 'in_imp', width: c.d }],
    response: [
      { name: 'hit', port: 'out_hit', width: 1 },
      { name: 'bad', port: 'out_bad', width: 1 },
    ],
    latency: ibfLatency(c),
    // A lane shard (`direct`) answers from the last stage, the cycle before the queue would.
    queueDepth: c.direct ? 0 : RESPONSE_QUEUE,
    maxStallCycles: c.depth + CLEAR_DELAY + 8,
  };
}

/**
 * Importance of a verification request: 1..MAX uniformly, and one request in 32 any value the
 * d-bit port carries (0 and those above MAX included: the refused inserts are verified too).
 */
export function ibfRequestFields(c: IbfDerived, rng: Rng): Record<string, bigint> {
  const any = rng.float() < 1 / 32;
  const v = any ? Math.floor(rng.float() * 2 ** c.d) : 1 + Math.floor(rng.float() * c.max);
  return { imp: BigInt(v) };
}

export class IbfStreamModel implements StreamModel {
  readonly model: IbfModel;

  constructor(readonly c: IbfDerived) {
    this.model = new IbfModel(c);
  }

  apply(req: StreamRequest): { hit: bigint; bad: bigint } {
    const imp = Number(req.fields.imp ?? 0n);
    const m = this.model;
    switch (req.op) {
      case 'query':
        return { hit: m.query(req.key) ? 1n : 0n, bad: 0n };
      case 'insert':
        return { hit: 0n, bad: m.insert(req.key, imp) ? 0n : 1n };
      case 'testAndInsert': {
        const r = m.testAndInsert(req.key, imp);
        return r === null ? { hit: 0n, bad: 1n } : { hit: r ? 1n : 0n, bad: 0n };
      }
      case 'clear':
        m.clear();
        return { hit: 0n, bad: 0n };
      default:
        throw new Error(`ibf: unknown op '${req.op}'`);
    }
  }

  agingEvents(): number {
    return this.model.deleteRounds;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareWords(this.model.memories(ibfMemoryName), read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every bank's cells from its
 * block RAM words (cell j of a word in bits [j·d, j·d + d)), the generator lanes from `rng<l>`
 * (stepped once per accepted insert as it is accepted, so the drained pipeline's lanes are the
 * model's). The model's totals (inserts, delete rounds) start at 0.
 */
export function ibfFromSnapshot(c: IbfDerived, s: SnapshotView): IbfStreamModel {
  const sm = new IbfStreamModel(c);
  sm.model.restore(
    (bank, a) => s.read(ibfMemoryName(bank), a),
    (l) => s.reg(`rng${l}`),
  );
  return sm;
}

/** The software filter: the compiled filter (./fast.ts), every insert of importance MAX. */
export function ibfSoftware(c: IbfDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => {
    const f = compileIbf(c);
    return {
      insert: (w: Uint32Array, o: number) => f.insert(w, o, c.max),
      query: (w: Uint32Array, o: number) => f.query(w, o),
      testAndInsert: (w: Uint32Array, o: number) => f.testAndInsert(w, o, c.max),
    };
  });
}
