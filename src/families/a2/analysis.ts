/**
 * A² analytics. Sources: the libBf manual (the seed text, section "Aging" → "A²") for the
 * formulas φ_a = 1 − √(1 − φ_P), k_a* = ⌊−log2 φ_a⌋ and κ_a* = ⌊m/(2k_a*) · ln 2⌋, which restate
 * Yoon (IEEE TKDE 22(1), 2010); the rest is derived here from the model's rules (./model.ts).
 *
 * A half is a partitioned Bloom filter: k banks of b = m/(2k) bits, one hash each. A plain
 * partitioned filter after n inserts has bank fill 1 − (1 − 1/b)^n. (The classic unpartitioned
 * half of m/2 bits would give (1 − (1 − 2/m)^{kn})^k: the same e^{−kn/(m/2)} to first order, the
 * partitioned one slightly higher: (1 − k/(m/2))^n ≤ (1 − 2/m)^{kn}.) But A² inserts only keys
 * NOT found in the active half, so a real insert is a key conditioned on "not all k bits set":
 * with every bank at fill r its bit u is unset with probability (1 − r)/(1 − r^k), more than a
 * random key's 1 − r. The fill of a half after n real inserts therefore follows
 *     r(0) = 0,   r(n+1) = r(n) + (1 − r(n)) / (b · (1 − r(n)^k))
 * (mean field: every bank at the same fill, the bits of a random key independent), and a key not
 * in the half is reported by it with probability φ(n) = r(n)^k. For k = 4, b = 512, κ = 354 this
 * gives r = 0.5052, φ = 0.0651, where 1 − (1 − 1/b)^κ = 0.4995 gives 0.0622; the model measures
 * 0.5052 and 0.0651 (test/families/a2/analysis.test.ts) — the skip rule costs ~5 % in fp there.
 *
 * The query ORs the halves, whose keys are disjoint; with independent hashes the two events are
 * independent, so with the active half at j keys and the standby half at κ:
 *     fp(j) = 1 − (1 − φ(κ)) (1 − φ(j)),      j = 0 … κ − 1,
 * largest just before a swap (j = κ − 1). The seed's φ_a = 1 − √(1 − φ_P) is this relation
 * solved for the half's rate when BOTH halves hold κ keys: 1 − (1 − φ_a)² = φ_P. It holds under
 * (i) independent, uniform hashes (Bloom's approximation), (ii) disjoint, distinct keys in the
 * halves (a duplicate found in the active half is not inserted again; one found only in the
 * standby half is, and then sits in both), (iii) both halves full, which our filter never quite
 * reaches (the swap follows the κ-th insert, so the active half holds at most κ − 1 keys when a
 * query comes): 1 − (1 − φ(κ))² is an upper bound of fp(j).
 *
 * The seed's k_a* = ⌊−log2 φ_a⌋ is the optimal number of hashes of a half at rate φ_a (k =
 * log2(1/φ) at fill 1/2), rounded down; κ_a* = ⌊(m/2)/k · ln 2⌋ = ⌊b · ln 2⌋ fills every bank to
 * one half when a half is complete. The floor of k_a* leaves φ(κ_a*) ≈ 2^−k_a* ≥ φ_a, so the
 * seed's pair can miss φ_P by up to a factor of two (the planner checks and tries k_a* + 1).
 *
 * Window (derived). Say key x entered its half as the j-th real insert (1 ≤ j ≤ κ). The half
 * takes κ − j more, swaps to standby, the new active half takes κ, and the swap after that flushes
 * x's half: x is present while at most 2κ − 1 − j real inserts came after it. So every key with at
 * most κ − 1 real inserts after it is found (j = κ is the worst case), and no key with 2κ − 1 or
 * more is found except by a false positive. A key found in the active half when it is inserted
 * (a duplicate, or a false positive) is in a half that flushes at least κ real inserts later.
 * Real inserts never outnumber the stream's inserts (a duplicate in the active half does not
 * count), so "among the last κ inserts of the stream, duplicates included" implies "at most κ − 1
 * real inserts after it": window = κ, whatever the duplicates. Slack: κ − 1 distinct inserts
 * (keys up to 2κ − 1 distinct inserts back may still be found; with duplicates in the stream,
 * arbitrarily many stream inserts back, since duplicates do not age the filter).
 *
 * Found vs age. With x's position j uniform over 1..κ (a stream position is), a key a real
 * inserts old is present with probability P(a) = min(1, max(0, 2κ − 1 − a)/κ); when it is not,
 * it is reported with the rate fp((j + a) mod κ) of that moment.
 */
import { fillRatio } from '../../analysis/bloom.js';

const curves = new Map<string, Float64Array>();

/** r(0..n): a half's bank fill after each real insert, under the skip rule (see the header). */
export function fillCurve(k: number, bankBits: number, n: number): Float64Array {
  const id = `${k}/${bankBits}`;
  const have = curves.get(id);
  if (have && have.length > n) return have;
  const len = Math.max(n + 1, 2 * (have?.length ?? 0));
  const r = new Float64Array(len);
  for (let i = 1; i < len; i++) {
    const x = r[i - 1]!;
    r[i] = Math.min(1, x + (1 - x) / (bankBits * (1 - x ** k)));
  }
  if (curves.size > 64) curves.clear();
  curves.set(id, r);
  return r;
}

/** A half's bank fill after n real inserts (the skip rule included). */
export function halfFill(k: number, bankBits: number, n: number): number {
  return fillCurve(k, bankBits, n)[n]!;
}

/** φ(n): a half with n real inserts reports a key it does not hold. */
export function halfFp(k: number, bankBits: number, n: number): number {
  return halfFill(k, bankBits, n) ** k;
}

/** The same for a plain partitioned filter (every key inserted): (1 − (1 − 1/b)^n)^k. */
export function plainHalfFp(k: number, bankBits: number, n: number): number {
  return fillRatio(bankBits, n) ** k;
}

/** fp with the active half at j keys and the standby half at `standby` keys. */
export function fpAt(k: number, bankBits: number, j: number, standby: number): number {
  return 1 - (1 - halfFp(k, bankBits, standby)) * (1 - halfFp(k, bankBits, j));
}

/** The worst moment: just before a swap (active κ − 1, standby κ). */
export function fpWorst(k: number, bankBits: number, kappa: number): number {
  return fpAt(k, bankBits, kappa - 1, kappa);
}

/** The seed's form: both halves at κ keys, 1 − (1 − φ(κ))². */
export function fpBothFull(k: number, bankBits: number, kappa: number): number {
  return fpAt(k, bankBits, kappa, kappa);
}

/** The seed's form with the plain fill (no skip rule), as the manual computes φ. */
export function fpSeed(k: number, bankBits: number, kappa: number): number {
  return 1 - (1 - plainHalfFp(k, bankBits, kappa)) ** 2;
}

/** fp averaged over the active half's fill j = 0..κ−1 (standby full): a long stream's rate. */
export function fpMean(k: number, bankBits: number, kappa: number): number {
  let s = 0;
  for (let j = 0; j < kappa; j++) s += fpAt(k, bankBits, j, kappa);
  return s / kappa;
}

/** The seed's φ_a: the rate of each half for an overall rate φ_P. */
export function halfTarget(fp: number): number {
  return 1 - Math.sqrt(1 - fp);
}

/** The seed's k_a* = ⌊−log2(1 − √(1 − φ_P))⌋ (at least 1). */
export function optimalK(fp: number): number {
  return Math.max(1, Math.floor(-Math.log2(halfTarget(fp))));
}

/** The seed's κ_a* = ⌊m/(2k) · ln 2⌋ for m bits in the two halves. */
export function optimalKappa(m: number, k: number): number {
  return Math.floor((m / (2 * k)) * Math.LN2);
}

/** P(present) of a key with `age` real inserts after it. */
export function presentProbability(kappa: number, age: number): number {
  return Math.min(1, Math.max(0, 2 * kappa - 1 - age) / kappa);
}

/** P(found) of a key with `age` real inserts after it: present, or a false positive then. */
export function foundProbability(k: number, bankBits: number, kappa: number, age: number): number {
  let s = 0;
  for (let j = 1; j <= kappa; j++) {
    if (age <= 2 * kappa - 1 - j) s += 1;
    else s += fpAt(k, bankBits, (j + age) % kappa, kappa);
  }
  return s / kappa;
}
