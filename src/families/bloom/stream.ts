/**
 * The set filters' pipeline as the stream verifier sees it: the protocol, the reference model
 * answering requests, the comparison of the block RAMs with the model's bit arrays, and the
 * software filter the bench times.
 */
import { MEMBERSHIP_SEMANTICS, wordsSoftware } from '../streamKit.js';
import type {
  MemoryCheck,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
import { compileBloom } from './fast.js';
import { BloomModel } from './model.js';
import { latencyOf, OP, RESPONSE_QUEUE, sweepCycles } from './params.js';
import { memoryName } from './rtl.js';
import type { BloomDerived } from './types.js';

export function bloomProtocol(c: BloomDerived): StreamProtocol {
  return {
    ops: OP,
    semantics: MEMBERSHIP_SEMANTICS,
    request: [],
    response: [{ name: 'hit', port: 'out_hit', width: 1 }],
    latency: latencyOf(c),
    queueDepth: c.direct ? 0 : RESPONSE_QUEUE,
    // The reset/clear sweep (a clear waits up to II − 1 cycles for the op ahead first): twice
    // that, with room to spare.
    maxStallCycles: 2 * (sweepCycles(c) + c.initiationInterval + 1) + 8,
    initiationInterval: c.initiationInterval,
  };
}

/** Column-by-column comparison of the design's block RAMs with the model's bit arrays. */
export function compareBloomMemories(
  c: BloomDerived,
  model: BloomModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (let col = 0; col < c.columns; col++) {
    const name = memoryName(col);
    for (let a = 0; a < c.columnDepth; a++) {
      checked++;
      const hw = read(name, a);
      const sw = model.word(col, a, c.wordBits);
      if (hw === sw) continue;
      count++;
      if (mismatches.length < 10)
        mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
    }
  }
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol. */
export class BloomStreamModel implements StreamModel {
  readonly model: BloomModel;

  constructor(readonly c: BloomDerived) {
    this.model = new BloomModel(c);
  }

  apply(req: StreamRequest): { hit: bigint } {
    const m = this.model;
    let hit = false;
    switch (req.op) {
      case 'query':
        hit = m.query(req.key);
        break;
      case 'insert':
        m.insert(req.key);
        break;
      case 'testAndInsert':
        hit = m.testAndInsert(req.key);
        break;
      case 'clear':
        m.clear();
        break;
      default:
        throw new Error(`bloom: unknown op '${req.op}'`);
    }
    return { hit: hit ? 1n : 0n };
  }

  agingEvents(): number {
    return 0;
  }

  /** Inserts since the last clear (the analytics' n; repeats counted): the control port's count. */
  occupancy(): number {
    return this.model.inserted;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareBloomMemories(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every column's bits from its
 * block RAM words (bit i of word a: bit a·W + i of the column), the inserts since the last clear
 * (the analytics' n) from the port's occupancy count.
 */
export function bloomFromSnapshot(c: BloomDerived, s: SnapshotView): BloomStreamModel {
  const sm = new BloomStreamModel(c);
  const m = sm.model;
  for (let col = 0; col < c.columns; col++)
    for (let a = 0; a < c.columnDepth; a++) {
      const w = s.read(memoryName(col), a);
      const base = col * m.colWords * 32 + a * c.wordBits;
      for (let i = 0; i < c.wordBits; i++) {
        const x = base + i;
        if ((w >> BigInt(i)) & 1n) m.bits[x >>> 5]! |= 1 << (x & 31);
        else m.bits[x >>> 5]! &= ~(1 << (x & 31));
      }
    }
  m.inserted = Number(s.counter('occupancy'));
  return sm;
}

/** The software filter: the compiled filter (./fast.ts), keys handed over as 32-bit words. */
export function bloomSoftware(c: BloomDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileBloom(c));
}
