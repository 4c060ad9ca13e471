/**
 * One bitwise config's analytics (what `bloomforge analyze` prints): the sizes, the largest
 * count, false positives at level 0 for the config's n items (the manual's basic formula and the
 * partitioned form the hardware has), and, for n items each added f times (f = 1, 2, 4, …), the
 * fp over all levels, the probability of reaching each level and the expected count error of the
 * digit cell model (./analysis.ts).
 */
import type { Analysis } from '../types.js';
import { falsePositives, halfFullItems, itemFigures, uniformProfile, type FpFigures } from './analysis.js';
import { maxCount } from './model.js';
import type { BitwiseDerived } from './types.js';

export interface BitwiseProfileRow {
  /** Every one of the n items added f times. */
  f: number;
  fp: number;
  /** P(count ≥ 2^{W_i}), i = 0..l−1 (i = 0: count > 0). */
  reach: number[];
  expectedError: number;
  /** P(count = 0): a false negative. */
  falseNegative: number;
}

export interface BitwiseAnalysis {
  filter: 'bitwise';
  l: number;
  levels: { cells: number; width: number; k: number; weight: number; halfFullItems: number }[];
  countBits: number;
  maxCount: string;
  items: number;
  /** fp of a never-added key with n items added once each (level 0 only holds them). */
  fp: number;
  fpBasic0: number;
  fpPartitioned0: number;
  /** A multiset filter has no sliding window; false negatives are possible (see the README). */
  window: null;
  slack: number;
  /** Counters read by a query (all banks in parallel, one word each). */
  accessesFalse: number;
  bitsPerElement: number;
  profiles: BitwiseProfileRow[];
}

/** Multiplicities shown: powers of two up to the largest count (at most 12 rows). */
function multiplicities(c: BitwiseDerived): number[] {
  const out: number[] = [];
  const step = Math.max(1, Math.ceil(c.countBits / 12));
  for (let e = 0; e <= c.countBits && out.length < 12; e += step) out.push(2 ** e);
  return out;
}

export function analyzeBitwise(c: BitwiseDerived): BitwiseAnalysis {
  const n = c.items;
  const once: FpFigures = falsePositives(c.levels, uniformProfile(n, 1));
  const bits = c.levels.reduce((s, L) => s + L.cells * L.width, 0);
  const profiles = multiplicities(c).map((f) => {
    const p = uniformProfile(n, f);
    const r = itemFigures(c.levels, p, f);
    return { f, fp: falsePositives(c.levels, p).total, ...r };
  });
  return {
    filter: 'bitwise',
    l: c.levels.length,
    levels: c.levels.map((L) => ({
      cells: L.cells,
      width: L.width,
      k: L.k,
      weight: 2 ** L.offset,
      halfFullItems: halfFullItems(L),
    })),
    countBits: c.countBits,
    maxCount: maxCount(c.levels).toString(),
    items: n,
    fp: once.total,
    fpBasic0: once.basic0,
    fpPartitioned0: once.partitioned0,
    window: null,
    slack: 0,
    accessesFalse: c.levels.reduce((s, L) => s + L.k, 0),
    bitsPerElement: bits / n,
    profiles,
  };
}

const g = (x: number): string => (x === 0 ? '0' : x >= 0.01 && x < 1e5 ? x.toPrecision(4) : x.toExponential(3));

/** `analyze`: the figures as JSON values and as text. */
export function bitwiseAnalysis(c: BitwiseDerived): Analysis {
  const a = analyzeBitwise(c);
  return {
    values: a,
    headline:
      `bitwise l=${a.l} ` +
      a.levels.map((L, i) => `V${i}=${L.cells}x${L.width}b k=${L.k}`).join(' ') +
      ` count <= ${a.maxCount}`,
    lines: [
      `level weights (count = sum of the level minima times these): ${a.levels.map((L) => L.weight).join(', ')}`,
      `items n = ${a.items}; ${a.bitsPerElement.toFixed(2)} counter bits per item; ${a.accessesFalse} counters read per op (in parallel)`,
      `fp at level 0, n items added once: ${g(a.fpPartitioned0)} partitioned (the hardware), ${g(a.fpBasic0)} basic formula`,
      `n items each added f times (digit cell model, analysis.ts): fp, P(count >= weight of level i), E[count] - f, P(count = 0):`,
      `  ${'f'.padStart(8)} ${'fp'.padStart(10)} ${a.levels.map((_, i) => `reach ${i}`.padStart(10)).join(' ')} ${'E[err]'.padStart(10)} ${'P(fn)'.padStart(10)}`,
      ...a.profiles.map(
        (r) =>
          `  ${String(r.f).padStart(8)} ${g(r.fp).padStart(10)} ${r.reach.map((x) => g(x).padStart(10)).join(' ')} ` +
          `${g(r.expectedError).padStart(10)} ${g(r.falseNegative).padStart(10)}`,
      ),
      'no promise of no false negatives: a carry zeroes counters that other items share (see the README)',
    ],
  };
}
