/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator (a batch of requests streamed by the stream driver, responses in order; the two are
 * checked equal elsewhere).
 */
import { StreamSession } from '../../verify/session.js';
import { BitwiseModel } from './model.js';
import { bitwiseProtocol } from './stream.js';
import { buildBitwise } from './rtl.js';
import type { BitwiseDerived } from './types.js';

export interface BitwiseOp {
  op: 'insert' | 'query';
  key: bigint;
}

export interface BitwiseEngine {
  /** Runs the ops in order; returns the count answered by each query (insert: 0n). */
  run(ops: readonly BitwiseOp[]): bigint[];
}

export function modelEngine(c: BitwiseDerived): BitwiseEngine {
  const m = new BitwiseModel(c);
  return {
    run: (ops) =>
      ops.map((o) => {
        if (o.op === 'insert') {
          m.insert(o.key);
          return 0n;
        }
        return m.count(o.key).count;
      }),
  };
}

export function simEngine(c: BitwiseDerived): BitwiseEngine {
  const s = new StreamSession(buildBitwise(c), bitwiseProtocol(c));
  return { run: (ops) => s.run(ops).map((r, i) => (ops[i]!.op === 'query' ? r.count! : 0n)) };
}

export function engineFor(kind: 'model' | 'sim', c: BitwiseDerived): BitwiseEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
