/**
 * Stage: the age-compare network of the timing filters — λ, the largest of k ages, and c, how
 * many ages equal it; when any timer has expired, λ = all ones and c = how many expired.
 *
 * `compareAges` (one register stage): every ordered pair of ages compared (`<prefix>_ge<i>_<j>`
 *   for i ≠ j, k(k−1) one-bit registers), the ages themselves (`<prefix>_age<i>`), "any expired"
 *   (`<prefix>_any_exp`) and the number expired (`<prefix>_exp_count`); no resets. Latency 1.
 * `oldestAge` (combinational, after those registers): age i is a maximum when it is ≥ every
 *   other (an AND of its row); all maxima hold the same age, so λ is the OR of the ages of the
 *   maxima (no comparator chain), and c the number of maxima. No adder sits before a compare.
 * Guarantee: λ = max(ages), c = |{i : ages[i] = λ}|; with any expired[i]: λ = 2^width − 1 and
 * c = |{i : expired[i]}| (test/stages/ages.test.ts checks this against a brute force).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

export interface CompareAgesOptions {
  /** k ages of equal width. */
  ages: Sig[];
  /** k one-bit flags: timer i has expired. */
  expired: Sig[];
  /** Width of the counts c (holds 0..k). */
  countBits: number;
  /** Register name prefix (the pipeline stage, e.g. 's7'). */
  prefix: string;
}

/** The registered result of `compareAges`: what `oldestAge` reduces. */
export interface AgePairs {
  /** ge[i][j]: ages[i] ≥ ages[j] (constant 1 on the diagonal). */
  ge: Sig[][];
  ages: Sig[];
  anyExpired: Sig;
  expiredCount: Sig;
  countBits: number;
}

/** Number of set bits, as `countBits` bits. */
function popCount(bits: Sig[], countBits: number): Sig {
  return bits.map((x) => x.zext(countBits)).reduce((x, y) => x.add(y));
}

export function compareAges(m: ModuleBuilder, o: CompareAgesOptions): AgePairs {
  const reg = (x: Sig, name: string): Sig => m.pipe(x, 1, `${o.prefix}_${name}`, { reset: null });
  const ge = o.ages.map((ai, i) => o.ages.map((aj, j) => (i === j ? m.const(1, 1) : reg(ai.ge(aj), `ge${i}_${j}`))));
  const anyExpired = reg(
    o.expired.reduce((x, y) => x.or(y)),
    'any_exp',
  );
  const expiredCount = reg(popCount(o.expired, o.countBits), 'exp_count');
  const ages = o.ages.map((a, i) => reg(a, `age${i}`));
  return { ge, ages, anyExpired, expiredCount, countBits: o.countBits };
}

/** λ and c from the registered compares (combinational). */
export function oldestAge(m: ModuleBuilder, r: AgePairs): { lambda: Sig; count: Sig; anyExpired: Sig } {
  const w = r.ages[0]!.width;
  const isMax = r.ge.map((row) => row.reduce((x, y) => x.and(y)));
  const maxAge = isMax.map((f, i) => r.ages[i]!.and(m.mux(f, m.const(2 ** w - 1, w), 0))).reduce((x, y) => x.or(y));
  const lambda = m.mux(r.anyExpired, 2 ** w - 1, maxAge);
  const count = m.mux(r.anyExpired, r.expiredCount, popCount(isMax, r.countBits));
  return { lambda, count, anyExpired: r.anyExpired };
}
