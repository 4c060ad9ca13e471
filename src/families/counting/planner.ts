/**
 * Counting/spectral planner (`plan --filter counting --items n --fp p`): the config whose
 * false-positive rate at n distinct items, (1 − (1 − 1/c)^n)^k (./analysis.ts), is at most p with
 * the least memory — or, with a target, the fewest block RAMs that fit the part. Candidates:
 * k = 1..MAX_K banks of c = 2..2^24 counters (powers of two), w bits per counter (--counter-bits,
 * default 4); RM doubles the banks (a secondary filter of the primary's size). Every candidate is
 * a config `generate` accepts (the derivation decides).
 */
import { bramBlocks } from '../../device/index.js';
import { choose, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { countingFp, expectedMsErrorDistinct, overflowFigures } from './analysis.js';
import { algorithmOf, deriveCounting, MAX_K } from './config.js';
import type { Algorithm, CountingDerived } from './types.js';

const ALGORITHMS: readonly Algorithm[] = ['ms', 'mi', 'rm'];
const DEFAULT_COUNTER_BITS = 4;

/** Block RAM primitives of a config on a target (every bank, primary and secondary). */
export function countingBlockRams(c: CountingDerived, target = c.target): number {
  const primary = c.k * bramBlocks(target, c.wordBits, c.depth);
  return primary + (c.algorithm === 'rm' ? c.k * bramBlocks(target, c.wordBits, c.secondaryDepth) : 0);
}

function memoryBits(c: CountingDerived): number {
  return c.k * (c.cellsPerBank + c.secondaryCellsPerBank) * c.counterBits;
}

function algorithmOfPlan(k: PlanConstraints): Algorithm {
  return ALGORITHMS[k.extra.algorithm ?? 0] ?? 'ms';
}

/** The smallest cellsPerBank for each k that meets fp (larger ones only cost more). */
function candidates(k: PlanConstraints): CountingDerived[] {
  const out: CountingDerived[] = [];
  const algorithm = algorithmOfPlan(k);
  const w = k.extra.counterBits ?? DEFAULT_COUNTER_BITS;
  for (let hashes = 1; hashes <= MAX_K; hashes++) {
    for (let cells = 2; cells <= 1 << 24; cells *= 2) {
      if (countingFp(k.window, cells, hashes) > k.fp && cells < 1 << 24) continue;
      try {
        out.push(
          deriveCounting({
            name: k.name ?? 'planned',
            filter: k.filter,
            ...(k.filter === 'spectral' ? { algorithm } : {}),
            k: hashes,
            counterBits: w,
            cellsPerBank: cells,
            items: k.window,
            keyBits: k.keyBits ?? 64,
            seed: k.seed ?? 1,
            ...(k.target ? { target: k.target } : {}),
          }),
        );
        break;
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
      }
    }
  }
  return out;
}

function evaluate(c: CountingDerived, k: PlanConstraints): Evaluated<CountingDerived> {
  const fp = countingFp(c.items, c.cellsPerBank, c.k);
  const blockRams = countingBlockRams(c, k.target ?? c.target);
  const bits = memoryBits(c);
  return {
    candidate: { config: c, fp, memoryBits: bits, blockRams, bitsPerElement: bits / c.items },
    checks: [{ name: 'fp', ok: fp <= k.fp, detail: `fp ${fp.toExponential(3)} > ${k.fp}` }, targetCheck(blockRams, k)],
    cost: k.target ? [blockRams, bits, c.k] : [bits, blockRams, c.k],
  };
}

export function planCounting(k: PlanConstraints): Plan<CountingDerived> {
  if (!(k.window >= 1) || !Number.isInteger(k.window))
    throw new ConfigError('plan: --items must be a positive integer');
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

function numberOption(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`plan: ${name} must be an integer ${min}..${max}`);
  return n;
}

export const countingPlanner: FamilyPlanner<CountingDerived> = {
  sizeBy: 'items',
  options: [
    { flags: '--counter-bits <w>', description: 'bits per counter (counting/spectral; default 4)' },
    { flags: '--algorithm <a>', description: 'ms | mi | rm (spectral; default ms)' },
  ],
  extra(v) {
    let algorithm: number | undefined;
    if (v.algorithm !== undefined) {
      algorithm = ALGORITHMS.indexOf(v.algorithm as Algorithm);
      if (algorithm < 0) throw new ConfigError(`plan: --algorithm must be one of ${ALGORITHMS.join(', ')}`);
    }
    // The algorithm travels as its index in ALGORITHMS (the constraints hold numbers).
    return { counterBits: numberOption('--counter-bits', v.counterBits, 1, 32), algorithm };
  },
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.fp === undefined) return null; // explicit sizes: derive checks the rest
    if (cfg.items === undefined) return fail('items', 'required with fp (the distinct keys to hold)');
    const sized = ['k', 'cellsPerBank', 'secondaryCellsPerBank', 'wordBits'].find((f) => cfg[f] !== undefined);
    if (sized)
      fail(
        sized,
        'with items and fp the planner chooses the sizes; leave out k, cellsPerBank, secondaryCellsPerBank and wordBits',
      );
    if (cfg.filter === 'spectral' && cfg.algorithm === undefined)
      fail('algorithm', 'required for filter spectral: ms, mi or rm');
    return {
      filter: cfg.filter as string,
      window: cfg.items as number,
      fp: cfg.fp as number,
      target: cfg.target as PlanConstraints['target'],
      keyBits: cfg.keyBits as number,
      seed: cfg.seed as number,
      name: cfg.name as string,
      extra: {
        counterBits: (cfg.counterBits as number | undefined) ?? DEFAULT_COUNTER_BITS,
        algorithm: ALGORITHMS.indexOf(algorithmOf(cfg)),
      },
    };
  },
  plan: planCounting,
  configOf(p: Plan<CountingDerived>, base?: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const c = p.winner.config;
    const k = p.constraints;
    return {
      name: c.name,
      filter: c.filter,
      ...(c.filter === 'spectral' ? { algorithm: c.algorithm } : {}),
      k: c.k,
      counterBits: c.counterBits,
      cellsPerBank: c.cellsPerBank,
      items: c.items,
      ...(base?.remove !== undefined ? { remove: base.remove } : {}),
      keyBits: c.keyBits,
      seed: c.seed,
      ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
      target: c.target,
      description: `planned for ${k.window} items at fp <= ${k.fp}`,
    };
  },
  record: (k) => ({
    items: k.window,
    fp: k.fp,
    counterBits: k.extra.counterBits ?? DEFAULT_COUNTER_BITS,
    algorithm: algorithmOfPlan(k),
  }),
  figures(c: Candidate<CountingDerived>) {
    const d = c.config;
    const o = overflowFigures(d.items, d.cellsPerBank, d.k, d.counterBits);
    return {
      k: d.k,
      cellsPerBank: d.cellsPerBank,
      overflowFanBound: o.fanBound,
      overflowPerCounter: o.counterTail,
      msError: expectedMsErrorDistinct(d.items, d.cellsPerBank, d.k, d.counterBits),
    };
  },
  shape(c: CountingDerived) {
    return {
      text: `${c.algorithm} k=${c.k} w=${c.counterBits} c=${c.cellsPerBank}`,
      json: { algorithm: c.algorithm, k: c.k, w: c.counterBits, cellsPerBank: c.cellsPerBank },
    };
  },
};
