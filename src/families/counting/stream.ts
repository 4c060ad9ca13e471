/**
 * The counting/spectral pipeline as the stream verifier sees it: its protocol (count and the
 * saturation flags beside hit; remove where the config has it), the reference model answering
 * requests, the comparison of the block RAMs with the model's counters, and the software filter
 * the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { wordsSoftware } from '../streamKit.js';
import type {
  MemoryCheck,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
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
    // A lane shard (`direct`) answers the cycle its response is formed, with no queue.
    latency: latencyOf(c.algorithm, c.direct),
    queueDepth: c.direct ? 0 : queueDepthOf(c.algorithm),
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

  /** Inserts − removes since the last clear (requests, as the control port counts them). */
  held = 0;

  apply(req: StreamRequest): Record<string, bigint> {
    if (!(req.op in opsOf(this.c))) throw new Error(`${this.c.name}: unknown op '${req.op}'`);
    const r = this.model.apply(req.op as CountOp, req.key);
    if (req.op === 'insert' || req.op === 'testAndInsert') this.held++;
    else if (req.op === 'remove') this.held--;
    else if (req.op === 'clear') this.held = 0;
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

  /** Inserts − removes since the last clear, 32-bit two's complement (the control port's count). */
  occupancy(): number {
    return ((this.held % 2 ** 32) + 2 ** 32) % 2 ** 32;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareCountingMemories(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every bank's counters (the
 * primary filter's, and RM's secondary filter's) from its block RAM words (lane j of a word in
 * bits [j·counterBits, (j + 1)·counterBits)), the inserts − removes since the last clear from the
 * port's occupancy count.
 */
export function countingFromSnapshot(c: CountingDerived, s: SnapshotView): CountingStreamModel {
  const sm = new CountingStreamModel(c);
  const m = sm.model;
  const mask = (1n << BigInt(c.counterBits)) - 1n;
  const banks: [boolean, Uint32Array[], number][] = [[false, m.primary, c.depth]];
  if (c.algorithm === 'rm') banks.push([true, m.secondary, c.secondaryDepth]);
  for (const [secondary, cells, depth] of banks)
    for (let i = 0; i < c.k; i++)
      for (let a = 0; a < depth; a++) {
        const w = s.read(countingMemoryName(secondary, i), a);
        for (let j = 0; j < c.lanes; j++) cells[i]![a * c.lanes + j] = Number((w >> BigInt(j * c.counterBits)) & mask);
      }
  const held = Number(s.counter('occupancy'));
  sm.held = held >= 2 ** 31 ? held - 2 ** 32 : held;
  return sm;
}

/**
 * The software filter: the compiled filter (./fast.ts, the model's operations generated as
 * JavaScript for this config), keys handed over as 32-bit words; query returns the count.
 */
export function countingSoftware(c: CountingDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileCounting(c));
}
