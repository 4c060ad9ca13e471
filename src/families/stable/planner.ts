/**
 * Stable Bloom filter planner (sizeBy 'window'): the config with the least memory (or, with a
 * target, the fewest block RAMs that fit the part) whose stable false-positive rate is at most
 * `fp` and which still reports a duplicate whose first occurrence was `window` inserts ago with
 * probability at least `findProbability` (default 0.99) — Deng & Rafiei's use: a duplicate is
 * detected if its previous occurrence is recent enough. The SBF has no window in the APBF sense
 * (false negatives at every age > 0 are possible); `window` here is that age.
 *
 * Candidates: k = 1..8, d = 1..3, every cellsPerWord the word-width limit allows, P the smallest
 * integer meeting the fp (fewer decrements keep keys longer), and for each of those the fewest
 * cells per bank (a power of two) that keep the duplicate found at age `window` (the probability
 * grows with the cells, so a binary search).
 */
import { bramBlocks, maxBramWidth, DEFAULT_TARGET } from '../../device/index.js';
import { checkIntent, choose, constraintsOf, type Evaluated, targetCheck } from '../../plan/choose.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { foundAtAge, smallestP } from './analysis.js';
import { deriveStable, MAX_CELLS_PER_WORD, MAX_WORD_BRAMS } from './config.js';
import { analyzeStable } from './summary.js';
import type { StableDerived } from './types.js';

export const DEFAULT_FIND_PROBABILITY = 0.99;
const MAX_CELLS_LOG2 = 22;

function findProbability(k: PlanConstraints): number {
  return k.extra.findProbability ?? DEFAULT_FIND_PROBABILITY;
}

/** The probability that a duplicate whose first occurrence was w inserts ago is reported. */
const foundAt = foundAtAge;

function candidates(k: PlanConstraints): StableDerived[] {
  const target = k.target ?? DEFAULT_TARGET;
  const maxWord = MAX_WORD_BRAMS * maxBramWidth(target);
  const prob = findProbability(k);
  const out: StableDerived[] = [];
  for (let hashes = 1; hashes <= 8; hashes++) {
    for (let d = 1; d <= 3; d++) {
      for (let C = 2; C <= MAX_CELLS_PER_WORD && C * d <= maxWord; C *= 2) {
        const P = smallestP({ k: hashes, d, cells: 1 << 20, cellsPerWord: C }, k.fp);
        if (P === null) continue;
        const ok = (e: number): boolean =>
          foundAt({ k: hashes, d, cells: 2 ** e, cellsPerWord: C, P }, k.window) >= prob;
        // The fewest cells (2^e, at least two words) that still find the duplicate at age window.
        let lo = Math.log2(2 * C);
        let hi = MAX_CELLS_LOG2;
        if (!ok(hi)) continue;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (ok(mid)) hi = mid;
          else lo = mid + 1;
        }
        out.push(
          deriveStable({
            name: k.name ?? 'planned',
            filter: 'stable',
            k: hashes,
            d,
            cells: 2 ** hi,
            cellsPerWord: C,
            P,
            keyBits: k.keyBits ?? 64,
            seed: k.seed ?? 1,
            ...(k.target ? { target: k.target } : {}),
          }),
        );
      }
    }
  }
  return out;
}

export function stableBlockRams(c: StableDerived): number {
  return c.k * bramBlocks(c.target, c.wordBits, c.depth);
}

function evaluate(c: StableDerived, k: PlanConstraints): Evaluated<StableDerived> {
  const a = analyzeStable(c);
  const blockRams = stableBlockRams(c);
  const memoryBits = c.k * c.cells * c.d;
  const prob = findProbability(k);
  const found = foundAt(c, k.window);
  return {
    candidate: { config: c, fp: a.fp, memoryBits, blockRams, bitsPerElement: memoryBits / k.window },
    checks: [
      { name: 'fp', ok: a.fp <= k.fp, detail: `fp ${a.fp.toExponential(3)} > ${k.fp}` },
      {
        name: 'find-probability',
        ok: found >= prob,
        detail: `found at age ${k.window} with probability ${found.toFixed(4)} < ${prob}`,
      },
      targetCheck(blockRams, k),
    ],
    cost: k.target ? [blockRams, memoryBits, c.k] : [memoryBits, blockRams, c.k],
  };
}

export function planStable(k: PlanConstraints): Plan<StableDerived> {
  checkIntent(k);
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

/** The config JSON a plan writes (accepted by `generate`). */
export function stablePlanConfig(
  p: Plan<StableDerived>,
  base?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const c = p.winner.config;
  const target = base?.target ?? p.constraints.target;
  return {
    name: c.name,
    filter: c.filter,
    k: c.k,
    d: c.d,
    cells: c.cells,
    cellsPerWord: c.cellsPerWord,
    P: c.P,
    keyBits: c.keyBits,
    seed: c.seed,
    ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
    ...(target ? { target } : {}),
    description:
      `planned: stable fp <= ${p.constraints.fp}, a duplicate found at age ${p.constraints.window} ` +
      `with probability >= ${findProbability(p.constraints)}`,
  };
}

const SIZES = ['k', 'd', 'cells', 'cellsPerWord', 'P'] as const;

export const stablePlanner: FamilyPlanner<StableDerived> = {
  sizeBy: 'window',
  options: [
    {
      flags: '--find-probability <p>',
      description: `stable: probability of finding a duplicate at age --window (default ${DEFAULT_FIND_PROBABILITY})`,
    },
  ],
  extra: (values) => ({
    findProbability: values.findProbability === undefined ? undefined : Number(values.findProbability),
  }),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.fp === undefined && cfg.window === undefined && cfg.findProbability === undefined) return null;
    const given = SIZES.find((f) => cfg[f] !== undefined);
    if (given) fail(given, 'with window and fp the planner chooses every size; leave it out');
    if (cfg.window === undefined) fail('window', 'the planner needs window (and fp)');
    if (cfg.fp === undefined) fail('fp', 'the planner needs fp (and window)');
    return constraintsOf(cfg, { findProbability: cfg.findProbability as number | undefined });
  },
  plan: planStable,
  configOf: stablePlanConfig,
  record: (k) => ({ window: k.window, fp: k.fp, findProbability: findProbability(k) }),
  figures(c: Candidate<StableDerived>) {
    const a = analyzeStable(c.config);
    return { window: null, slack: 0, npws: null, accessesFalse: a.accessesFalse, age99: a.age99, age50: a.age50 };
  },
  shape(c: StableDerived) {
    return {
      text: `k=${c.k} d=${c.d} cells=${c.cells} C=${c.cellsPerWord} P=${c.P}`,
      json: { k: c.k, d: c.d, cells: c.cells, cellsPerWord: c.cellsPerWord, P: c.P },
    };
  },
};
