/**
 * Analytics of the pipeline's variant (Imp-insert or M-insert with word-local Random-delete).
 * Boraskar gives no formulas (§7 names a Markov-chain analysis as future work); this is that
 * chain for one cell, in the way Deng & Rafiei analyse the SBF (one cell's value as a Markov
 * chain, cells treated as independent):
 *
 *   per insert, a cell of bank i is the insert's own cell with probability s = 1/cells and is then
 *   set to the insert's value V (Imp-insert: the importance, V ~ the importance distribution;
 *   M-insert: V = MAX); otherwise it is in the insert's delete mask with probability
 *   q_i = (P_i / cells)·(1 − 1/C) (the word is the insert's with probability 1/depth, the cell in
 *   the P_i-cell mask with probability P_i/C, not the own cell) and goes down by one unless 0.
 *
 * Stationary distribution: see `stationary` (a closed recursion for M-insert, the balance
 * equations solved for Imp-insert, whose sets may jump down too). The false-positive rate at the stable point is
 * Π_i (1 − π_0^(i)) (a fresh key finds k non-zero cells). A key of importance v inserted j
 * inserts ago is still found with probability Π_i Pr[cell i non-zero after j steps from v]
 * (the chain stepped j times; other keys' sets, which only help, are part of the chain).
 * The importance distribution is uniform over 1..MAX (the paper's linear data set, §6.1.2).
 */
import { deletesPerBank } from './model.js';
import type { IbfParams } from './types.js';

/** Pr[V = v], v = 0..max (index 0 unused). */
export function valueDistribution(p: IbfParams): number[] {
  const out = new Array<number>(p.max + 1).fill(0);
  if (p.insert === 'max') out[p.max] = 1;
  else for (let v = 1; v <= p.max; v++) out[v] = 1 / p.max;
  return out;
}

export function bankRates(p: IbfParams): { s: number; q: number }[] {
  const C = p.cellsPerWord;
  return deletesPerBank(p.P, p.k).map((Pi) => ({ s: 1 / p.cells, q: (Pi / p.cells) * (1 - 1 / C) }));
}

/** Largest MAX for which the Imp-insert chain is solved (a dense (MAX+1)² system). */
export const MAX_SOLVED = 256;

/**
 * The stationary distribution of a cell of a bank with rates s, q. M-insert (every set goes to
 * MAX, the chain only jumps up by sets and steps down by one): flow across the cut between j−1
 * and j, π_j · q = s · (π_0 + … + π_{j−1}), computed upwards from π_0. Imp-insert (a set may also
 * jump down): the balance equations π = πT solved directly (Gaussian elimination), for
 * MAX ≤ MAX_SOLVED; null above.
 */
export function stationary(p: IbfParams, s: number, q: number): number[] | null {
  const pv = valueDistribution(p);
  const pi = new Array<number>(p.max + 1).fill(0);
  if (q === 0) {
    // No deletes: every cell ends non-zero; the stationary mass is the value distribution.
    for (let v = 1; v <= p.max; v++) pi[v] = pv[v]!;
    return pi;
  }
  if (p.insert === 'max') {
    pi[0] = 1;
    let F = 1;
    for (let j = 1; j <= p.max; j++) {
      pi[j] = (s / q) * F;
      F += pi[j]!;
    }
    return pi.map((x) => x / F);
  }
  if (p.max > MAX_SOLVED) return null;
  const n = p.max + 1;
  // A·π = b: rows j = 1..max of (T^T − I)π = 0, row 0 replaced by Σπ = 1.
  const A = Array.from({ length: n }, () => new Float64Array(n + 1));
  for (let i = 0; i < n; i++) {
    // Row i of T: stay, step down (q, except at 0), set to v (s·pv[v]).
    const down = i === 0 ? 0 : q;
    const add = (to: number, x: number): void => {
      A[to]![i]! += x;
    };
    add(i, 1 - s - down);
    if (down) add(i - 1, down);
    for (let v = 1; v <= p.max; v++) add(v, s * pv[v]!);
    A[i]![i]! -= 1;
  }
  for (let i = 0; i < n; i++) A[0]![i] = 1;
  A[0]![n] = 1;
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r]![col]!) > Math.abs(A[piv]![col]!)) piv = r;
    [A[col], A[piv]] = [A[piv]!, A[col]!];
    const d = A[col]![col]!;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = A[r]![col]! / d;
      if (f === 0) continue;
      for (let cc = col; cc <= n; cc++) A[r]![cc]! -= f * A[col]![cc]!;
    }
  }
  for (let j = 0; j < n; j++) pi[j] = Math.max(0, A[j]![n]! / A[j]![j]!);
  return pi;
}

/** The stable point (null: an Imp-insert chain above MAX_SOLVED). */
export function stablePoint(p: IbfParams): { zeros: number; fp: number; bankZeros: number[] } | null {
  const dists = bankRates(p).map(({ s, q }) => stationary(p, s, q));
  if (dists.some((d) => d === null)) return null;
  const bankZeros = dists.map((d) => d![0]!);
  return {
    zeros: bankZeros.reduce((a, b) => a + b, 0) / p.k,
    fp: bankZeros.reduce((a, z) => a * (1 - z), 1),
    bankZeros,
  };
}

/** One step of a cell's distribution. */
function step(p: IbfParams, pv: number[], s: number, q: number, dist: Float64Array, out: Float64Array): void {
  out.fill(0);
  const stay = 1 - s - q;
  for (let j = 0; j <= p.max; j++) {
    const x = dist[j]!;
    if (x === 0) continue;
    out[j]! += x * stay;
    out[j === 0 ? 0 : j - 1]! += x * q;
  }
  for (let v = 1; v <= p.max; v++) out[v]! += s * pv[v]!;
}

/**
 * Probability that a key inserted with importance v is still found after each of the given ages
 * (inserts since, ascending), and the largest age at which it is found with probability ≥ each of
 * `levels` (null: not reached within `horizon` inserts).
 */
export function foundByAge(
  p: IbfParams,
  v: number,
  ages: readonly number[],
  levels: readonly number[] = [],
  horizon = 2_000_000,
): { found: number[]; ageAt: (number | null)[] } {
  const pv = valueDistribution(p);
  const rates = bankRates(p);
  const value = p.insert === 'max' ? p.max : v;
  const dists = rates.map(() => {
    const d = new Float64Array(p.max + 1);
    d[value] = 1;
    return d;
  });
  const tmp = new Float64Array(p.max + 1);
  const found: number[] = [];
  const ageAt: (number | null)[] = levels.map(() => null);
  const done = levels.map(() => false);
  const lastAge = Math.max(ages.length ? ages[ages.length - 1]! : 0, levels.length ? horizon : 0);
  let ai = 0;
  for (let j = 0; j <= lastAge; j++) {
    const f = dists.reduce((a, d) => a * (1 - d[0]!), 1);
    while (ai < ages.length && ages[ai] === j) {
      found.push(f);
      ai++;
    }
    levels.forEach((lv, li) => {
      if (!done[li] && f < lv) {
        done[li] = true;
        ageAt[li] = j - 1;
      }
    });
    if (ai >= ages.length && done.every(Boolean)) break;
    rates.forEach(({ s, q }, i) => {
      step(p, pv, s, q, dists[i]!, tmp);
      dists[i]!.set(tmp);
    });
  }
  return { found, ageAt };
}
