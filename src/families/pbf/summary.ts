/**
 * One config's analytics (what `bloomforge analyze` prints): the per-level false-positive rate
 * after n distinct pairs, the range query's rate at the config's |q| (SBF: Eq. 4; PBF-2: Eq. 8 /
 * Theorem 5.3 averaged over the query's position), the probes and cycles of a query, and the
 * bits Theorem 5.5 (Eq. 14) asks for the same rate.
 */
import type { Analysis } from '../types.js';
import { bitsForRangeFp, filterFp, pbf2Probes, pbf2RangeFp, sbfProbes, sbfRangeFp } from './analysis.js';
import type { PbfDerived } from './types.js';

export interface PbfAnalysis {
  filter: string;
  horizon: number;
  k: number;
  bits: number;
  n: number;
  queryLength: number;
  /** Range-query fp at |q| with every level holding n distinct items (an upper bound: coarse levels hold fewer). */
  fp: number;
  /** Per level (height h): its fp after n items. */
  levelFp: { height: number; sliceBits: number; fp: number }[];
  /** mt-queries of a query of length |q| (SBF: short-circuit, false answers: |q|). */
  probes: number;
  /** Pipeline cycles a query occupies (PBF-2: 2; SBF: |q|). */
  queryCycles: number;
  /** Eq. 14: bits for this fp at n, T, |q| (PBF-2). */
  bitsTheorem55: number | null;
  window: null;
  slack: number;
  accessesFalse: number;
  bitsPerElement: number;
}

export function analyzePbf(c: PbfDerived): PbfAnalysis {
  const n = c.items;
  const q = c.queryLength;
  const levelFp = c.levels.map((l) => ({
    height: l.height,
    sliceBits: l.sliceBits,
    fp: filterFp(l.k, l.sliceBits, n),
  }));
  const byH = new Map(levelFp.map((l) => [l.height, l.fp]));
  const bits = c.levels.reduce((s, l) => s + l.k * l.sliceBits, 0);
  const sbf = c.filter === 'sbf';
  const fp = sbf ? sbfRangeFp(levelFp[0]!.fp, q) : pbf2RangeFp(c.horizon, c.timeBits, q, (h) => byH.get(h) ?? 1);
  const probes = sbf ? q : pbf2Probes(c.horizon, c.timeBits, q);
  return {
    filter: c.filter,
    horizon: c.horizon,
    k: c.k,
    bits,
    n,
    queryLength: q,
    fp,
    levelFp,
    probes,
    queryCycles: sbf ? q : 2,
    bitsTheorem55: sbf || fp <= 0 || fp >= 1 ? null : bitsForRangeFp(n, c.horizon, fp, q),
    window: null,
    slack: 0,
    accessesFalse: sbf ? sbfProbes(levelFp[0]!.fp, q) : probes,
    bitsPerElement: bits / n,
  };
}

export function pbfAnalysis(c: PbfDerived): Analysis {
  const a = analyzePbf(c);
  return {
    values: a,
    headline: `${a.filter} T=${a.horizon} k=${a.k} bits=${a.bits} n=${a.n} |q|=${a.queryLength}`,
    lines: [
      'no false negatives: q(x, [s, e]) is 1 whenever x was inserted at a time in [s, e]',
      `range-query fp at |q| = ${a.queryLength}: ${a.fp.toExponential(4)} (${a.filter === 'sbf' ? 'Eq. 4: 1 - (1 - p)^|q|' : 'Eq. 8 / Thm 5.3 over the canonical cover, mean over positions'}; every level at n = ${a.n} distinct items)`,
      `per level fp: ${a.levelFp.map((l) => `h${l.height} ${l.fp.toExponential(2)}`).join(', ')}`,
      `mt-queries per query ${a.probes.toFixed(2)}, pipeline cycles per query ${a.queryCycles} (inserts: 1)`,
      ...(a.bitsTheorem55 !== null
        ? [`Theorem 5.5 (Eq. 14): ${Math.round(a.bitsTheorem55)} bits for this fp (this config: ${a.bits})`]
        : []),
      `bits per distinct pair ${a.bitsPerElement.toFixed(2)}`,
    ],
  };
}
