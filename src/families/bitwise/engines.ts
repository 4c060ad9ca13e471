/**
 * The filter behind an experiment: the reference model, or the RTL pipeline in the compiled
 * simulator (a batch of requests streamed at one per cycle, responses collected in order; the two
 * are checked equal elsewhere).
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { BitwiseModel } from './model.js';
import { BITWISE_OP } from './params.js';
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
  const sim = new CompiledSim(buildBitwise(c));
  sim.poke('out_ready', 1);
  while (sim.peek('in_ready') === 0n) sim.step();
  return {
    run(ops) {
      const out: bigint[] = [];
      let next = 0;
      while (out.length < ops.length) {
        const o = ops[next];
        sim.poke('in_valid', o ? 1 : 0);
        if (o) {
          sim.poke('in_op', BITWISE_OP[o.op]);
          sim.poke('in_key', o.key);
        }
        if (o && sim.peek('in_ready') === 1n) next++;
        if (sim.peek('out_valid') === 1n) out.push(sim.peek('out_count'));
        sim.step();
      }
      sim.poke('in_valid', 0);
      return out;
    },
  };
}

export function engineFor(kind: 'model' | 'sim', c: BitwiseDerived): BitwiseEngine {
  return kind === 'sim' ? simEngine(c) : modelEngine(c);
}
