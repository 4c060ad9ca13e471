/**
 * Drives a TBF/BTBF pipeline with a random op stream and checks it three ways, like the APBF
 * verifier: every response (hit, λx, cx, and the decision unit's answer) of the TS simulator
 * equals the reference model's; the same stimulus on Verilator (and Icarus) gives the same outputs
 * every cycle; at the end every timer in the block RAMs equals the model's timer.
 * Also counts stall cycles, T+ wraps, and — with an exact window beside it — false negatives of
 * the standard answer and the penalties of the standard and the inferential answers.
 */
import { buildTbf, tbfMemoryName } from '../../src/families/tbf/rtl.js';
import { lambdaBits, TBF_OP } from '../../src/families/tbf/params.js';
import type { TbfDerived } from '../../src/families/tbf/types.js';
import type { Design } from '../../src/ir/types.js';
import { ExactWindow } from '../../src/families/apbf/model.js';
import { TbfModel } from '../../src/families/tbf/model.js';
import { decideWord, decisionTable, posteriorWord, ratioOf } from '../../src/families/tbf/decision.js';
import { CompiledSim } from '../compiled.js';
import type { Comparison } from '../cosim/compare.js';
import type { OutputTrace, Stimulus } from '../engine.js';
import { Rng } from '../../src/util/rng.js';
import { runSteps, runStepsAsync } from './steps.js';
import { rtlComparisons, uniformWorkload, type Workload } from './apbf.js';

export type TbfOpName = keyof typeof TBF_OP;

export interface TbfDriveOptions {
  ops: number;
  seed: number;
  backpressure?: number;
  idle?: number;
  mix?: Partial<Record<TbfOpName, number>>;
  workload?: Workload;
  record?: boolean;
  /** Check the standard answers against the exact window (no clear in the mix). */
  exactWindow?: boolean;
  /** Per-request penalties: $FP and $FN uniform in [1, 10) (§6.2); default: a random ratio. */
  penalties?: 'random';
}

export interface TbfMismatch {
  op: number;
  kind: string;
  expected: string;
  got: string;
}

export interface TbfDriveResult {
  design: Design;
  sim: CompiledSim;
  model: TbfModel;
  ops: number;
  inserts: number;
  cycles: number;
  stallCycles: number;
  firstAccept: number;
  lastAccept: number;
  /** Full cycles of T+ through 0..TΩ. */
  wraps: number;
  responses: number;
  modelMismatches: TbfMismatch[];
  inWindow: number;
  falseNegatives: number;
  outside: number;
  falsePositives: number;
  /** Decisions scored against the exact window (with `penalties`). */
  scored: number;
  penaltyStandard: number;
  penaltyInferential: number;
  stimulus: Stimulus;
  outputs: OutputTrace;
}

const DEFAULT_MIX: Record<TbfOpName, number> = { query: 4, insert: 4, testAndInsert: 2, clear: 0 };

function* driveTbfSteps(
  c: TbfDerived,
  o: TbfDriveOptions,
  design = buildTbf(c),
): Generator<void, TbfDriveResult, void> {
  const sim = new CompiledSim(design, { poisonCollisions: true });
  const model = new TbfModel(c);
  const exact = o.exactWindow ? new ExactWindow(c.window) : null;
  const table = c.decision ? decisionTable(c) : null;
  const pb = c.decision?.posteriorBits ?? 0;
  const classes = c.decision?.classes.length ?? 1;
  const INF = 2 ** lambdaBits(c) - 1;
  const rng = new Rng(o.seed);
  const mix = { ...DEFAULT_MIX, ...(o.mix ?? {}) };
  const names = Object.keys(mix) as TbfOpName[];
  const total = names.reduce((s, n) => s + mix[n], 0);
  const pickOp = (): TbfOpName => {
    let r = rng.float() * total;
    for (const n of names) if ((r -= mix[n]) < 0) return n;
    return names[names.length - 1]!;
  };
  const workload = o.workload ?? uniformWorkload(c.keyBits, 4 * c.window);
  const tagMask = (1 << c.tagBits) - 1;
  type Pending = { op: TbfOpName; key: bigint; tag: number; cls: number; ratio: number; fp: number; fn: number };
  const expected: {
    tag: number;
    hit: boolean;
    lambda: number;
    c: number;
    decision: boolean;
    op: number;
    kind: string;
  }[] = [];
  const res: TbfDriveResult = {
    design,
    sim,
    model,
    ops: 0,
    inserts: 0,
    cycles: 0,
    stallCycles: 0,
    firstAccept: -1,
    lastAccept: -1,
    wraps: 0,
    responses: 0,
    modelMismatches: [],
    inWindow: 0,
    falseNegatives: 0,
    outside: 0,
    falsePositives: 0,
    scored: 0,
    penaltyStandard: 0,
    penaltyInferential: 0,
    stimulus: [],
    outputs: [],
  };
  const inputs = design.inputs.map((p) => p.name);
  let pending: Pending | null = null;
  let sweepDone = false;
  const maxCycles = o.ops * 4 + 10_000;
  while ((res.ops < o.ops || expected.length > 0) && res.cycles < maxCycles) {
    if (!pending && res.ops < o.ops && !(o.idle && rng.float() < o.idle)) {
      const op = pickOp();
      let fp = 1;
      let fn = 1;
      let ratio = 0;
      if (table) {
        if (o.penalties === 'random') {
          fp = 1 + 9 * rng.float();
          fn = 1 + 9 * rng.float();
          ratio = ratioOf(fp, fn, pb);
        } else ratio = Math.floor(rng.float() * 2 ** pb);
      }
      // Scored runs use class 0 (the stream's own prior); verification runs exercise every class.
      const cls = classes > 1 && o.penalties !== 'random' ? Math.floor(rng.float() * classes) : 0;
      pending = { op, key: workload.nextKey(rng), tag: res.ops & tagMask, cls, ratio, fp, fn };
    }
    const outReady = o.backpressure && rng.float() < o.backpressure ? 0 : 1;
    const values: Record<string, bigint> = {
      in_valid: pending ? 1n : 0n,
      in_op: BigInt(pending ? TBF_OP[pending.op] : 0),
      in_key: pending?.key ?? 0n,
      in_tag: BigInt(pending?.tag ?? 0),
      in_class: BigInt(pending?.cls ?? 0),
      in_ratio: BigInt(pending?.ratio ?? 0),
      out_ready: BigInt(outReady),
      rst: 0n,
    };
    const row = inputs.map((n) => values[n]!);
    inputs.forEach((n, i) => sim.poke(n, row[i]!));
    const inReady = sim.peek('in_ready') === 1n;
    const outValid = sim.peek('out_valid') === 1n;
    if (inReady) sweepDone = true;
    if (o.record) {
      res.stimulus.push(row);
      res.outputs.push(design.outputs.map((p) => sim.peek(p.name)));
    }
    if (outValid && outReady) {
      const got = {
        tag: Number(sim.peek('out_tag')),
        hit: sim.peek('out_hit') === 1n,
        lambda: Number(sim.peek('out_lambda')),
        c: Number(sim.peek('out_c')),
        decision: table ? sim.peek('out_decision') === 1n : false,
      };
      const want = expected.shift();
      res.responses++;
      const same =
        want &&
        want.tag === got.tag &&
        want.hit === got.hit &&
        want.lambda === got.lambda &&
        want.c === got.c &&
        want.decision === got.decision;
      if (!same) {
        if (res.modelMismatches.length < 20) {
          const fmt = (x: typeof got): string =>
            `tag ${x.tag} hit ${x.hit} λ ${x.lambda} c ${x.c}${table ? ` decision ${x.decision}` : ''}`;
          res.modelMismatches.push({
            op: want?.op ?? -1,
            kind: want?.kind ?? 'unexpected',
            expected: want ? fmt(want) : 'no response',
            got: fmt(got),
          });
        } else res.modelMismatches.length++;
      }
    }
    if (pending) {
      if (inReady) {
        const { op, key, tag, cls, ratio } = pending;
        let hit = false;
        let lambda = 0;
        let cx = 0;
        let decision = false;
        if (op === 'query' || op === 'testAndInsert') {
          const q = model.query(key);
          hit = q.hit;
          lambda = q.lambda === Infinity ? INF : q.lambda;
          cx = q.c;
          if (table) decision = decideWord(posteriorWord(c, table, cls, q.lambda, q.c, q.b), ratio);
          if (exact) {
            const truth = exact.has(key);
            if (truth) {
              res.inWindow++;
              if (!hit) res.falseNegatives++;
            } else {
              res.outside++;
              if (hit) res.falsePositives++;
            }
            if (table && o.penalties === 'random') {
              const cost = (answer: boolean): number => (answer === truth ? 0 : answer ? pending!.fp : pending!.fn);
              res.scored++;
              res.penaltyStandard += cost(hit);
              res.penaltyInferential += cost(decision);
            }
          }
        }
        if (op === 'insert' || op === 'testAndInsert') {
          const before = model.tPlus;
          model.insert(key);
          exact?.insert(key);
          res.inserts++;
          if (before === c.tOmega && model.tPlus === 0) res.wraps++;
        } else if (op === 'clear') {
          model.clear();
          exact?.clear();
        }
        expected.push({ tag, hit, lambda, c: cx, decision, op: res.ops, kind: op });
        if (res.firstAccept < 0) res.firstAccept = res.cycles;
        res.lastAccept = res.cycles;
        res.ops++;
        pending = null;
      } else if (sweepDone) res.stallCycles++;
    }
    sim.step();
    res.cycles++;
    if ((res.cycles & 0x3fff) === 0) yield; // lets an async caller breathe every 16384 cycles
  }
  return res;
}

/** Runs the whole stream synchronously. */
export function driveTbf(c: TbfDerived, o: TbfDriveOptions, design = buildTbf(c)): TbfDriveResult {
  return runSteps(driveTbfSteps(c, o, design));
}

/** The same, yielding to the event loop every 16384 cycles (long runs inside test workers). */
export async function driveTbfAsync(c: TbfDerived, o: TbfDriveOptions, design = buildTbf(c)): Promise<TbfDriveResult> {
  return runStepsAsync(driveTbfSteps(c, o, design));
}

/** Every timer of the simulator's banks (L_A ≠ L_S ? T : Tε) vs the model's; both copies equal. */
export function compareTimers(r: TbfDriveResult, c: TbfDerived): { timers: number; mismatches: string[] } {
  const mismatches: string[] = [];
  const t = c.timersPerWord;
  const lw = c.timerBits + 1;
  let timers = 0;
  const note = (s: string): void => {
    if (mismatches.length < 10) mismatches.push(s);
  };
  for (let j = 0; j < c.k; j++) {
    for (let a = 0; a < c.wordsPerBank; a++) {
      const wa = r.sim.readMemory(tbfMemoryName(j, 'timers'), a);
      const ws = r.sim.readMemory(tbfMemoryName(j, 'scan'), a);
      const wm = r.sim.readMemory(tbfMemoryName(j, 'marks'), a);
      if (wa !== ws) note(`bank${j} word ${a}: timer copies differ`);
      for (let i = 0; i < t; i++) {
        timers++;
        const lane = (wa >> BigInt(i * lw)) & ((1n << BigInt(lw)) - 1n);
        const T = Number(lane & ((1n << BigInt(c.timerBits)) - 1n));
        const la = Number(lane >> BigInt(c.timerBits));
        const ls = Number((wm >> BigInt(i)) & 1n);
        const hw = la !== ls ? T : c.tEps;
        const sw = r.model.timers[j * c.timersPerBank + a * t + i]!;
        if (hw !== sw) note(`bank${j} timer ${a * t + i}: simulator ${hw} model ${sw}`);
      }
    }
  }
  return { timers, mismatches };
}

export interface TbfVerifyResult {
  drive: TbfDriveResult;
  memory: { timers: number; mismatches: string[] };
  rtl: Comparison[];
  mismatches: number;
}

export async function verifyTbf(
  c: TbfDerived,
  o: TbfDriveOptions & { icarus?: boolean; verilator?: boolean },
  design?: Design,
): Promise<TbfVerifyResult> {
  const drive = await driveTbfAsync(c, { ...o, record: true }, design);
  const memory = compareTimers(drive, c);
  const rtl = await rtlComparisons(drive, o);
  const mismatches = drive.modelMismatches.length + memory.mismatches.length + rtl.reduce((s, x) => s + x.count, 0);
  return { drive, memory, rtl, mismatches };
}
