/**
 * Drives an APBF/APBBF pipeline with a random op stream and checks it three ways:
 * 1. every response of the TS simulator equals the reference model's answer (model ≡ simulator);
 * 2. the same per-cycle stimulus on Verilator (and optionally Icarus) gives the same outputs on
 *    every port, every cycle (simulator ≡ RTL);
 * 3. at the end, the simulator's block RAMs equal the model's bit arrays, bank by bank.
 * The simulator runs with poisoned read-during-write collisions, so a pipeline that relied on
 * undefined block RAM behaviour would fail check 1.
 */
import { buildApbf, memoryName } from '../../src/families/apbf/rtl.js';
import { OP } from '../../src/families/apbf/params.js';
import type { ApbfDerived } from '../../src/families/apbf/types.js';
import type { Design } from '../../src/ir/types.js';
import { ApbfModel, ExactWindow } from '../../src/families/apbf/model.js';
import { CompiledSim } from '../compiled.js';
import { compareTraces, type Comparison } from '../cosim/compare.js';
import { runIcarus } from '../cosim/icarus.js';
import { runVerilator } from '../cosim/verilator.js';
import type { OutputTrace, Stimulus } from '../engine.js';
import { Rng } from '../../src/util/rng.js';
import { runSteps, runStepsAsync } from './steps.js';

export type OpName = keyof typeof OP;

export interface Workload {
  /** Next key to use (a bigint of at most keyBits bits). */
  nextKey(rng: Rng): bigint;
}

const M64 = (1n << 64n) - 1n;

/** SplitMix64's finaliser: a bijection on 64-bit words. */
function mix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & M64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

/**
 * Key number i of a workload's universe as a random-looking keyBits-bit key. Keys must not be
 * small integers or a constant XOR small integers: H3 is linear, so such key sets land in a
 * low-dimensional subspace of the hash space and collide in structured ways.
 */
export function keyOfIndex(i: number, keyBits: number, salt: number): bigint {
  let key = 0n;
  for (let j = 0; j * 64 < keyBits; j++) key |= mix64(BigInt(i) * 0x100n + BigInt(salt * 16 + j)) << BigInt(64 * j);
  return key & ((1n << BigInt(keyBits)) - 1n);
}

export function uniformWorkload(keyBits: number, universe: number): Workload {
  const keys = Array.from({ length: Math.min(universe, 1 << 20) }, (_, i) => keyOfIndex(i, keyBits, 1));
  return {
    nextKey: (rng) => {
      const i = Math.floor(rng.float() * universe);
      return i < keys.length ? keys[i]! : keyOfIndex(i, keyBits, 1);
    },
  };
}

/** Zipf(s) over `universe` keys by inverse CDF (rank 1 most frequent). */
export function zipfWorkload(keyBits: number, universe: number, s = 1): Workload {
  const cdf = new Float64Array(universe);
  let acc = 0;
  for (let i = 0; i < universe; i++) cdf[i] = acc += 1 / (i + 1) ** s;
  const keys = Array.from({ length: Math.min(universe, 1 << 20) }, (_, i) => keyOfIndex(i, keyBits, 2));
  return {
    nextKey: (rng) => {
      const u = rng.float() * acc;
      let lo = 0;
      let hi = universe - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid]! < u) lo = mid + 1;
        else hi = mid;
      }
      return lo < keys.length ? keys[lo]! : keyOfIndex(lo, keyBits, 2);
    },
  };
}

/** Every key new (a counter through a bijective mix, so keys look random). */
export function distinctWorkload(keyBits: number, start = 0): Workload {
  let i = BigInt(start);
  const mask = (1n << BigInt(keyBits)) - 1n;
  return { nextKey: () => ((i++ * 0x9e3779b97f4a7c15n) ^ 0x5bd1e995n) & mask };
}

/** Keys from a list (a workload file), cycling. */
export function listWorkload(keys: bigint[]): Workload {
  let i = 0;
  return { nextKey: () => keys[i++ % keys.length]! };
}

export interface DriveOptions {
  ops: number;
  seed: number;
  /** Probability that out_ready is low in a cycle. */
  backpressure?: number;
  /** Probability that in_valid is low in a cycle (an idle cycle). */
  idle?: number;
  /** Relative weights of the ops. */
  mix?: Partial<Record<OpName, number>>;
  workload?: Workload;
  /** Record the stimulus for replay on Verilator/Icarus. */
  record?: boolean;
  /** Check answers against the exact window: no false negative allowed (no tick/clear in mix). */
  exactWindow?: boolean;
}

export interface DriveResult {
  design: Design;
  sim: CompiledSim;
  model: ApbfModel;
  ops: number;
  cycles: number;
  /** Cycles with in_valid high and in_ready low, after the power-up sweep. */
  stallCycles: number;
  /** Cycles of the first and the last accepted request. */
  firstAccept: number;
  lastAccept: number;
  responses: number;
  modelMismatches: { op: number; kind: string; tag: number; expected: string; got: string }[];
  falseNegatives: number;
  falsePositives: number;
  negativesTested: number;
  positives: number;
  /** Tested keys inserted within the slack (between w and w+s inserts ago), and how many hit. */
  slackTested: number;
  slackHits: number;
  stimulus: Stimulus;
  outputs: OutputTrace;
}

const DEFAULT_MIX: Record<OpName, number> = { query: 4, insert: 4, testAndInsert: 2, tick: 0, clear: 0 };

function* driveApbfSteps(c: ApbfDerived, o: DriveOptions, design = buildApbf(c)): Generator<void, DriveResult, void> {
  const sim = new CompiledSim(design, { poisonCollisions: true });
  const model = new ApbfModel(c);
  const exact = o.exactWindow ? new ExactWindow(c.window) : null;
  const withSlack = o.exactWindow ? new ExactWindow(c.window + c.slack) : null;
  const rng = new Rng(o.seed);
  const mix = { ...DEFAULT_MIX, ...(o.mix ?? {}) };
  const names = Object.keys(mix) as OpName[];
  const total = names.reduce((s, n) => s + mix[n], 0);
  const pickOp = (): OpName => {
    let r = rng.float() * total;
    for (const n of names) if ((r -= mix[n]) < 0) return n;
    return names[names.length - 1]!;
  };
  const workload = o.workload ?? uniformWorkload(c.keyBits, 4 * c.window);
  const tagMask = (1 << c.tagBits) - 1;
  const expected: { tag: number; hit: boolean; op: number; kind: OpName }[] = [];
  const res: DriveResult = {
    design,
    sim,
    model,
    ops: 0,
    cycles: 0,
    stallCycles: 0,
    firstAccept: -1,
    lastAccept: -1,
    responses: 0,
    modelMismatches: [],
    falseNegatives: 0,
    falsePositives: 0,
    negativesTested: 0,
    positives: 0,
    slackTested: 0,
    slackHits: 0,
    stimulus: [],
    outputs: [],
  };
  let pending: { op: OpName; key: bigint; tag: number } | null = null;
  let sweepDone = false;
  const maxCycles = o.ops * 4 + 10_000;
  while ((res.ops < o.ops || expected.length > 0) && res.cycles < maxCycles) {
    if (!pending && res.ops < o.ops && !(o.idle && rng.float() < o.idle)) {
      const op = pickOp();
      pending = { op, key: workload.nextKey(rng), tag: res.ops & tagMask };
    }
    const outReady = o.backpressure && rng.float() < o.backpressure ? 0 : 1;
    const row = [
      pending ? 1n : 0n,
      BigInt(pending ? OP[pending.op] : 0),
      pending?.key ?? 0n,
      BigInt(pending?.tag ?? 0),
      BigInt(outReady),
    ];
    design.inputs.forEach((p, i) => sim.poke(p.name, p.name === 'rst' ? 0n : row[i]!));
    const inReady = sim.peek('in_ready') === 1n;
    const outValid = sim.peek('out_valid') === 1n;
    if (inReady) sweepDone = true;
    if (o.record) {
      res.stimulus.push(design.inputs.map((p) => (p.name === 'rst' ? 0n : row[design.inputs.indexOf(p)]!)));
      res.outputs.push(design.outputs.map((p) => sim.peek(p.name)));
    }
    if (outValid && outReady) {
      const got = { tag: Number(sim.peek('out_tag')), hit: sim.peek('out_hit') === 1n };
      const want = expected.shift();
      res.responses++;
      if (!want || want.tag !== got.tag || want.hit !== got.hit) {
        if (res.modelMismatches.length < 20) {
          res.modelMismatches.push({
            op: want?.op ?? -1,
            kind: want?.kind ?? 'unexpected',
            tag: got.tag,
            expected: want ? `tag ${want.tag} hit ${want.hit}` : 'no response',
            got: `tag ${got.tag} hit ${got.hit}`,
          });
        } else res.modelMismatches.length++;
      }
    }
    if (pending) {
      if (inReady) {
        const { op, key, tag } = pending;
        let hit = false;
        if (op === 'query' || op === 'testAndInsert') {
          hit = model.query(key);
          if (exact) {
            if (exact.has(key)) {
              res.positives++;
              if (!hit) res.falseNegatives++;
            } else if (withSlack!.has(key)) {
              res.slackTested++;
              if (hit) res.slackHits++;
            } else {
              res.negativesTested++;
              if (hit) res.falsePositives++;
            }
          }
        }
        if (op === 'insert' || op === 'testAndInsert') {
          model.insert(key);
          exact?.insert(key);
          withSlack?.insert(key);
        } else if (op === 'tick') model.tick();
        else if (op === 'clear') {
          model.clear();
          exact?.clear();
          withSlack?.clear();
        }
        expected.push({ tag, hit, op: res.ops, kind: op });
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
export function driveApbf(c: ApbfDerived, o: DriveOptions, design = buildApbf(c)): DriveResult {
  return runSteps(driveApbfSteps(c, o, design));
}

/** The same, yielding to the event loop every 16384 cycles (long runs inside test workers). */
export async function driveApbfAsync(c: ApbfDerived, o: DriveOptions, design = buildApbf(c)): Promise<DriveResult> {
  return runStepsAsync(driveApbfSteps(c, o, design));
}

/** Bank-by-bank comparison of the simulator's block RAMs with the model's live segments. */
export function compareMemories(r: DriveResult, c: ApbfDerived): { words: number; mismatches: string[] } {
  const mismatches: string[] = [];
  let words = 0;
  for (const bank of r.model.liveBanks()) {
    for (let j = 0; j < c.bitsPerBlock; j++) {
      const name = memoryName(bank, j, c.bitsPerBlock);
      for (let a = 0; a < c.columnDepth; a++) {
        words++;
        const hw = r.sim.readMemory(name, a);
        const sw = r.model.word(bank, j, a, c.wordBits);
        if (hw !== sw && mismatches.length < 10) {
          mismatches.push(`${name}[${a}]: simulator 0x${hw.toString(16)} model 0x${sw.toString(16)}`);
        }
      }
    }
  }
  return { words, mismatches };
}

export interface VerifyResult {
  drive: DriveResult;
  memory: { words: number; mismatches: string[] };
  rtl: Comparison[];
  mismatches: number;
}

/** Replays a recorded run on Verilator (default) and Icarus; one comparison per engine. */
export async function rtlComparisons(
  run: { design: Design; stimulus: Stimulus; outputs: OutputTrace },
  o: { icarus?: boolean; verilator?: boolean },
): Promise<Comparison[]> {
  const rtl: Comparison[] = [];
  if (o.verilator ?? true) {
    const trace = await runVerilator(run.design, run.stimulus);
    rtl.push(compareTraces(run.design, ['ts-compiled', 'verilator'], run.outputs, trace));
  }
  if (o.icarus) {
    const trace = await runIcarus(run.design, run.stimulus);
    rtl.push(compareTraces(run.design, ['ts-compiled', 'icarus'], run.outputs, trace));
  }
  return rtl;
}

export async function verifyApbf(
  c: ApbfDerived,
  o: DriveOptions & { icarus?: boolean; verilator?: boolean },
): Promise<VerifyResult> {
  const drive = await driveApbfAsync(c, { ...o, record: true });
  const memory = compareMemories(drive, c);
  const rtl = await rtlComparisons(drive, o);
  const mismatches = drive.modelMismatches.length + memory.mismatches.length + rtl.reduce((s, x) => s + x.count, 0);
  return { drive, memory, rtl, mismatches };
}
