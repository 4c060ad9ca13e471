/**
 * The counting/spectral pipeline as the stream verifier sees it: its protocol (count and the
 * saturation flags beside hit; remove where the config has it), the reference model answering
 * requests, the comparison of the block RAMs with the model's counters, and the software filter
 * the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { wordsSoftware } from '../streamKit.js';
import type { MemoryCheck, SoftwareFilter, StreamModel, StreamProtocol, StreamRequest } from '../types.js';
import { compileCounting } from './fast.js';
import { CountingModel, type CountOp } from './model.js';
import { latencyOf, opsOf, queueDepthOf } from './params.js';
import { countingMemoryName } from './rtl.js';
import type { CountingDerived } from './types.js';

export function countingProtocol(c: CountingDerived): StreamProtocol {
  return {
    ops: opsOf(c),
    semantics: {
      query: { queries: true },
      insert: { inserts: true },
      testAndInsert: { queries: true, inserts: true },
      ...(c.remove ? { remove: { removes: true } } : {}),
      clear: { clears: true },
    },
    request: [],
    response: [
      { name: 'hit', port: 'out_hit', width: 1 },
      { name: 'count', port: 'out_count', width: c.counterBits },
      { name: 'overflow', port: 'out_overflow', width: 1 },
      { name: 'underflow', port: 'out_underflow', width: 1 },
    ],
    latency: latencyOf(c.algorithm),
    queueDepth: queueDepthOf(c.algorithm),
    // A clear: the ops ahead of it write (at most the latency), then the sweep (CLEAR_DELAY +
    // depth); twice that, with room to spare.
    maxStallCycles: 2 * (latencyOf(c.algorithm) + c.depth + CLEAR_DELAY + 1) + 8,
  };
}

/** Every word of every bank (primary, and RM's secondary) against the model's counters. */
export function compareCountingMemories(
  c: CountingDerived,
  model: CountingModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  const banks: [boolean, number][] = [[false, c.depth]];
  if (c.algorithm === 'rm') banks.push([true, c.secondaryDepth]);
  for (const [secondary, depth] of banks)
    for (let i = 0; i < c.k; i++) {
      const name = countingMemoryName(secondary, i);
      for (let a = 0; a < depth; a++) {
        checked++;
        const hw = read(name, a);
        const sw = model.word(secondary, i, a);
        if (hw === sw) continue;
        count++;
        if (mismatches.length < 10)
          mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
      }
    }
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol. */
export class CountingStreamModel implements StreamModel {
  readonly model: CountingModel;

  constructor(readonly c: CountingDerived) {
    this.model = new CountingModel(c);
  }

  apply(req: StreamRequest): Record<string, bigint> {
    if (!(req.op in opsOf(this.c))) throw new Error(`${this.c.name}: unknown op '${req.op}'`);
    const r = this.model.apply(req.op as CountOp, req.key);
    return {
      hit: r.hit ? 1n : 0n,
      count: BigInt(r.count),
      overflow: r.overflow ? 1n : 0n,
      underflow: r.underflow ? 1n : 0n,
    };
  }

  agingEvents(): number {
    return 0;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareCountingMemories(this.c, this.model, read);
  }
}

/**
 * The software filter: the compiled filter (./fast.ts, the model's operations generated as
 * JavaScript for this config), keys handed over as 32-bit words; query returns the count.
 */
export function countingSoftware(c: CountingDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileCounting(c));
}
