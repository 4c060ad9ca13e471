/**
 * The GBF pipeline as the stream verifier sees it: its protocol (c0, c1 and the decision unit's
 * answer beside the standard one; the prior class and the penalty ratio as request fields), the
 * reference model answering requests, the comparison of the banks with the model's cells, and the
 * software filter the bench times.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { bitsFor } from '../../stages/primitives.js';
import { MEMBERSHIP_SEMANTICS, wordsSoftware } from '../streamKit.js';
import type { Rng } from '../../util/rng.js';
import type {
  MemoryCheck,
  PortField,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
  StreamRequest,
  SnapshotView,
} from '../types.js';
import { gbfDecide, gbfDecisionLayout, gbfDecisionTable, gbfRomAddress } from './decision.js';
import { compileGbf } from './fast.js';
import { GbfModel } from './model.js';
import { banksOf, GBF_OP, GBF_RESPONSE_QUEUE, gbfLatency } from './params.js';
import { gbfMemoryName } from './rtl.js';
import type { GbfDerived } from './types.js';

export function gbfProtocol(c: GbfDerived): StreamProtocol {
  const request: PortField[] = [];
  const response: PortField[] = [
    { name: 'hit', port: 'out_hit', width: 1 },
    { name: 'c0', port: 'out_c0', width: bitsFor(c.k0) },
    { name: 'c1', port: 'out_c1', width: bitsFor(c.k1) },
  ];
  if (c.decision) {
    const dl = gbfDecisionLayout(c);
    if (dl.classBits > 0) request.push({ name: 'class', port: 'in_class', width: dl.classBits });
    request.push({ name: 'ratio', port: 'in_ratio', width: dl.posteriorBits });
    response.push({ name: 'decision', port: 'out_decision', width: 1 });
  }
  return {
    ops: GBF_OP,
    semantics: MEMBERSHIP_SEMANTICS,
    request,
    response,
    latency: gbfLatency(c),
    // A lane shard (`direct`) answers from the last stage, the cycle before the queue would.
    queueDepth: c.direct ? 0 : GBF_RESPONSE_QUEUE,
    // The reset/clear sweep: CLEAR_DELAY + wordsPerBank cycles; twice that, with room to spare.
    maxStallCycles: 2 * (c.wordsPerBank + CLEAR_DELAY + 1) + 8,
  };
}

/** Every word of every bank vs the model's cells. */
export function compareGbfBanks(
  c: GbfDerived,
  model: GbfModel,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  let checked = 0;
  let count = 0;
  for (let j = 0; j < banksOf(c); j++) {
    for (let a = 0; a < c.wordsPerBank; a++) {
      checked++;
      const hw = read(gbfMemoryName(j), a);
      const sw = model.word(j, a, c.wordBits);
      if (hw === sw) continue;
      count++;
      if (mismatches.length < 10)
        mismatches.push(`${gbfMemoryName(j)}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
    }
  }
  return { checked, unit: 'words', mismatches, count };
}

/** The reference model behind the stream protocol, with the decision unit's table. */
export class GbfStreamModel implements StreamModel {
  readonly model: GbfModel;
  private readonly table: number[] | null;

  constructor(readonly c: GbfDerived) {
    this.model = new GbfModel(c);
    this.table = c.decision ? gbfDecisionTable(c) : null;
  }

  /** Insert requests since the last clear (the control port's count). */
  inserted = 0;

  apply(req: StreamRequest): Record<string, bigint> {
    const m = this.model;
    const out: Record<string, bigint> = { hit: 0n, c0: 0n, c1: 0n };
    if (req.op === 'insert' || req.op === 'testAndInsert') this.inserted++;
    else if (req.op === 'clear') this.inserted = 0;
    if (this.table) out.decision = 0n;
    if (!(req.op in GBF_OP)) throw new Error(`gbf: unknown op '${req.op}'`);
    if (req.op === 'query' || req.op === 'testAndInsert') {
      const q = req.op === 'query' ? m.query(req.key) : m.testAndInsert(req.key);
      out.hit = q.hit ? 1n : 0n;
      out.c0 = BigInt(q.c0);
      out.c1 = BigInt(q.c1);
      if (this.table) {
        const word = this.table[gbfRomAddress(gbfDecisionLayout(this.c), Number(req.fields.class ?? 0n), q.c0, q.c1)]!;
        out.decision = gbfDecide(word, Number(req.fields.ratio ?? 0n)) ? 1n : 0n;
      }
    } else if (req.op === 'insert') m.insert(req.key);
    else m.clear();
    return out;
  }

  agingEvents(): number {
    return 0;
  }

  /** Insert requests since the last clear (the control port's count). */
  occupancy(): number {
    return this.inserted;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareGbfBanks(this.c, this.model, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): every bank's cells from its
 * block RAM words (bit i of word a: cell a·W + i of the bank), the insert requests since the last
 * clear from the port's occupancy count. The decision unit's posterior table (a block RAM the
 * generator fills, never written by the pipeline) is the config's, not loaded: a snapshot with a
 * different table is refused.
 */
export function gbfFromSnapshot(c: GbfDerived, s: SnapshotView): GbfStreamModel {
  const sm = new GbfStreamModel(c);
  for (let j = 0; j < banksOf(c); j++)
    for (let a = 0; a < c.wordsPerBank; a++) sm.model.setWord(j, a, c.wordBits, s.read(gbfMemoryName(j), a));
  if (c.decision)
    gbfDecisionTable(c).forEach((want, a) => {
      const got = s.read('posterior', a);
      if (got !== BigInt(want))
        throw new Error(
          `gbf snapshot: posterior[${a}] is 0x${got.toString(16)}, the config's table has 0x${want.toString(16)}`,
        );
    });
  sm.inserted = Number(s.counter('occupancy'));
  return sm;
}

/** Random request fields for verification: every prior class, any penalty ratio. */
export function gbfRequestFields(c: GbfDerived, rng: Rng): Record<string, bigint> {
  if (!c.decision) return {};
  const dl = gbfDecisionLayout(c);
  const fields: Record<string, bigint> = { ratio: BigInt(Math.floor(rng.float() * 2 ** dl.posteriorBits)) };
  if (dl.classBits > 0) fields.class = BigInt(Math.floor(rng.float() * c.decision.classes.length));
  return fields;
}

/** The software filter: the compiled GBF (./fast.ts) on keys handed over as 32-bit words. */
export function gbfSoftware(c: GbfDerived): SoftwareFilter {
  return wordsSoftware(c.keyBits, 'compiled', () => compileGbf(c));
}
