/**
 * The TBF/BTBF pipeline as the stream verifier sees it: its protocol (λx, cx and the decision
 * unit's answer beside the standard one; the prior class and the penalty ratio as request
 * fields), the reference model answering requests, the comparison of the timer banks with the
 * model's timers, the software filter the bench times, and `simulate --penalties`.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { bitsFor } from '../../stages/common.js';
import { UsageError } from '../../util/errors.js';
import type { Rng } from '../../util/rng.js';
import type {
  DriveHooks,
  MemoryCheck,
  PortField,
  SimulateExtension,
  SoftwareFilter,
  SnapshotView,
  StreamModel,
  StreamProtocol,
  StreamRequest,
} from '../types.js';
import { decideWord, decisionLayout, decisionTable, posteriorWord, ratioOf } from './decision.js';
import { TbfModel } from './model.js';
import { lambdaBits, TBF_OP, TBF_RESPONSE_QUEUE, tbfLatency } from './params.js';
import { tbfMemoryName } from './rtl.js';
import type { TbfDerived } from './types.js';

export function tbfProtocol(c: TbfDerived): StreamProtocol {
  const request: PortField[] = [];
  const response: PortField[] = [
    { name: 'hit', port: 'out_hit', width: 1 },
    { name: 'lambda', port: 'out_lambda', width: lambdaBits(c) },
    { name: 'c', port: 'out_c', width: bitsFor(c.k) },
  ];
  if (c.decision) {
    const dl = decisionLayout(c);
    if (dl.classBits > 0) request.push({ name: 'class', port: 'in_class', width: dl.classBits });
    request.push({ name: 'ratio', port: 'in_ratio', width: dl.posteriorBits });
    response.push({ name: 'decision', port: 'out_decision', width: 1 });
  }
  return {
    ops: TBF_OP,
    semantics: {
      query: { queries: true },
      insert: { inserts: true },
      testAndInsert: { queries: true, inserts: true },
      clear: { clears: true },
    },
    request,
    response,
    latency: tbfLatency(c),
    queueDepth: c.laneTime ? 0 : TBF_RESPONSE_QUEUE,
    // The reset/clear sweep: CLEAR_DELAY + wordsPerBank cycles; twice that, with room to spare.
    maxStallCycles: 2 * (c.wordsPerBank + CLEAR_DELAY + 1) + 8,
  };
}

/** Every timer of the design's banks (L_A ≠ L_S ? T : Tε) vs the model's; both copies equal. */
export function compareTbfTimers(
  c: TbfDerived,
  timers: Uint32Array,
  read: (memory: string, addr: number) => bigint,
): MemoryCheck {
  const mismatches: string[] = [];
  const t = c.timersPerWord;
  const lw = c.timerBits + 1;
  let checked = 0;
  let count = 0;
  const note = (s: string): void => {
    count++;
    if (mismatches.length < 10) mismatches.push(s);
  };
  for (let j = 0; j < c.k; j++) {
    for (let a = 0; a < c.wordsPerBank; a++) {
      const wa = read(tbfMemoryName(j, 'timers'), a);
      const ws = read(tbfMemoryName(j, 'scan'), a);
      const wm = read(tbfMemoryName(j, 'marks'), a);
      if (wa !== ws) note(`bank${j} word ${a}: timer copies differ`);
      for (let i = 0; i < t; i++) {
        checked++;
        const lane = (wa >> BigInt(i * lw)) & ((1n << BigInt(lw)) - 1n);
        const T = Number(lane & ((1n << BigInt(c.timerBits)) - 1n));
        const la = Number(lane >> BigInt(c.timerBits));
        const ls = Number((wm >> BigInt(i)) & 1n);
        const hw = la !== ls ? T : c.tEps;
        const sw = timers[j * c.timersPerBank + a * t + i]!;
        if (hw !== sw) note(`bank${j} timer ${a * t + i}: simulator ${hw} model ${sw}`);
      }
    }
  }
  return { checked, unit: 'timers', mismatches, count };
}

/** The reference model behind the stream protocol, with the decision unit's table. */
export class TbfStreamModel implements StreamModel {
  readonly model: TbfModel;
  private readonly table: number[] | null;
  private readonly inf: number;
  wraps = 0;

  constructor(readonly c: TbfDerived) {
    this.model = new TbfModel(c);
    this.table = c.decision ? decisionTable(c) : null;
    this.inf = 2 ** lambdaBits(c) - 1;
  }

  /**
   * On one lane the model keeps its own time. A shard of an N-lane filter (`laneTime`) takes T+
   * and b from the request's fields (`tplus`, `bcnt` advanced by `before` inserts), an insert only
   * writes its timers, and `scan` takes one step of the expiry scan after the op at the time
   * advanced by `scanAt` inserts (src/families/types.ts, LaneTime).
   */
  apply(req: StreamRequest): Record<string, bigint> {
    const m = this.model;
    const f = req.fields;
    const lanes = this.c.laneTime !== undefined;
    const at = (n: bigint | undefined): void => {
      const g = Number(f.bcnt ?? 0n) + Number(n ?? 0n);
      m.b = g % this.c.blockSize;
      m.tPlus = (Number(f.tplus ?? 0n) + Math.floor(g / this.c.blockSize)) % (this.c.tOmega + 1);
    };
    if (lanes) at(f.before);
    const out: Record<string, bigint> = { hit: 0n, lambda: 0n, c: 0n };
    if (this.table) out.decision = 0n;
    if (!(req.op in TBF_OP)) throw new Error(`tbf: unknown op '${req.op}'`);
    if (req.op === 'query' || req.op === 'testAndInsert') {
      const q = m.query(req.key);
      out.hit = q.hit ? 1n : 0n;
      out.lambda = BigInt(q.lambda === Infinity ? this.inf : q.lambda);
      out.c = BigInt(q.c);
      if (this.table) {
        const cls = Number(f.class ?? 0n);
        const word = posteriorWord(this.c, this.table, cls, q.lambda, q.c, q.b);
        out.decision = decideWord(word, Number(f.ratio ?? 0n)) ? 1n : 0n;
      }
    }
    if (req.op === 'insert' || req.op === 'testAndInsert') {
      // On lanes the time comes with the request: the insert only writes its timers (merging: at
      // the time of its group's last insert, `last`).
      if (lanes) {
        if (f.last !== undefined) at(f.last);
        m.write(req.key);
      } else {
        const before = m.tPlus;
        m.insert(req.key);
        if (before === this.c.tOmega && m.tPlus === 0) this.wraps++;
      }
    } else if (req.op === 'clear') m.clear();
    if (lanes && f.scan) {
      at(f.scanAt);
      m.scanStep();
    }
    return out;
  }

  agingEvents(): number {
    return this.wraps;
  }

  /** Inserts since the last wrap of T+ (or clear): T+·B + b, the hardware's {tplus, bcnt}. */
  occupancy(): number {
    return this.model.tPlus * this.c.blockSize + this.model.b;
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    return compareTbfTimers(this.c, this.model.timers, read);
  }
}

/**
 * The model in a control-port snapshot's state (drained pipeline): each timer from its bank's
 * timer word (value and live bit) and mark word, as `compareTbfTimers` reads them (live bit ≠ mark:
 * the value; equal: expired, tEps); T+ from `tplus`, the block count from `bcnt` (BTBF; 0 for the
 * TBF), the expiry scan's position from `scan_ptr`. The wrap count (the model's aging events)
 * starts at 0. The expiry scan's copy of the timer words must equal them, and the decision unit's
 * posterior table (a block RAM the generator fills, never written) must be the config's: a
 * snapshot where they are not is refused.
 */
export function tbfFromSnapshot(c: TbfDerived, s: SnapshotView): TbfStreamModel {
  const sm = new TbfStreamModel(c);
  const m = sm.model;
  const t = c.timersPerWord;
  const lw = c.timerBits + 1;
  for (let j = 0; j < c.k; j++)
    for (let a = 0; a < c.wordsPerBank; a++) {
      const wa = s.read(tbfMemoryName(j, 'timers'), a);
      const wm = s.read(tbfMemoryName(j, 'marks'), a);
      if (s.read(tbfMemoryName(j, 'scan'), a) !== wa)
        throw new Error(
          `tbf snapshot: ${tbfMemoryName(j, 'scan')}[${a}] is not a copy of ${tbfMemoryName(j, 'timers')}[${a}]`,
        );
      for (let i = 0; i < t; i++) {
        const lane = (wa >> BigInt(i * lw)) & ((1n << BigInt(lw)) - 1n);
        const T = Number(lane & ((1n << BigInt(c.timerBits)) - 1n));
        const la = Number(lane >> BigInt(c.timerBits));
        const ls = Number((wm >> BigInt(i)) & 1n);
        m.timers[j * c.timersPerBank + a * t + i] = la !== ls ? T : c.tEps;
      }
    }
  if (c.decision)
    decisionTable(c).forEach((want, a) => {
      const got = s.read('posterior', a);
      if (got !== BigInt(want))
        throw new Error(
          `tbf snapshot: posterior[${a}] is 0x${got.toString(16)}, the config's table has 0x${want.toString(16)}`,
        );
    });
  m.tPlus = Number(s.reg('tplus'));
  m.b = c.blockSize > 1 ? Number(s.reg('bcnt')) : 0;
  m.scanPtr = Number(s.reg('scan_ptr'));
  return sm;
}

/** Random request fields for verification: every prior class, any penalty ratio. */
export function tbfRequestFields(c: TbfDerived, rng: Rng): Record<string, bigint> {
  if (!c.decision) return {};
  const dl = decisionLayout(c);
  const fields: Record<string, bigint> = { ratio: BigInt(Math.floor(rng.float() * 2 ** dl.posteriorBits)) };
  if (dl.classBits > 0) fields.class = BigInt(Math.floor(rng.float() * c.decision.classes.length));
  return fields;
}

/** The software filter: the reference model itself, on bigint keys. */
export function tbfSoftware(c: TbfDerived): SoftwareFilter {
  return {
    engine: 'reference',
    keys: 200_000,
    fresh(keys) {
      const m = new TbfModel(c);
      return {
        insert: (i) => m.insert(keys[i]!),
        query: (i) => m.query(keys[i]!),
        testAndInsert: (i) => m.testAndInsert(keys[i]!),
      };
    },
  };
}

/**
 * `simulate --penalties random`: per query, $FP and $FN uniform in [1, 10) (§6.2), the request's
 * ratio field set from them (prior class 0, the stream's own), and the total penalty of the
 * standard and the decision unit's answers scored against the exact window.
 */
export const tbfSimulate: SimulateExtension<TbfDerived> = {
  options: [
    {
      flags: '--penalties <p>',
      description: "TBF/BTBF with a decision unit: 'random' ($FP, $FN uniform in [1, 10) per query)",
    },
  ],
  hooks(c, values): DriveHooks | null {
    const p = values.penalties;
    if (p === undefined) return null;
    if (p !== 'random') throw new UsageError(`--penalties: '${p}' is not 'random'`);
    if (!c.decision) throw new UsageError(`--penalties: ${c.name} has no decision unit`);
    const dl = decisionLayout(c);
    let scored = 0;
    let standard = 0;
    let inferential = 0;
    return {
      request(rng) {
        const fp = 1 + 9 * rng.float();
        const fn = 1 + 9 * rng.float();
        const fields: Record<string, bigint> = { ratio: BigInt(ratioOf(fp, fn, dl.posteriorBits)) };
        if (dl.classBits > 0) fields.class = 0n;
        return { fields, note: { fp, fn } };
      },
      scored(resp, truth, note) {
        const { fp, fn } = note as { fp: number; fn: number };
        const cost = (answer: boolean): number => (answer === truth ? 0 : answer ? fp : fn);
        scored++;
        standard += cost(resp.hit === 1n);
        inferential += cost(resp.decision === 1n);
      },
      report: () => ({
        penalties: { scored, standard, inferential, ratio: standard > 0 ? inferential / standard : null },
      }),
      lines: () => [
        `  total penalty over ${scored} queries: standard ${standard.toFixed(1)}, inferential ${inferential.toFixed(1)} ` +
          `(ratio ${standard > 0 ? (inferential / standard).toFixed(3) : 'n/a'})`,
      ],
    };
  },
};
