/**
 * A² analytics. Sources: the libBf manual (the seed text, section "Aging" → "A²") for the
 * formulas φ_a = 1 − √(1 − φ_P), k_a* = ⌊−log2 φ_a⌋ and κ_a* = ⌊m/(2k_a*) · ln 2⌋, which restate
 * Yoon (IEEE TKDE 22(1), 2010); the rest is derived here from the model's rules (./model.ts).
 *
 * A half is a partitioned Bloom filter: k banks of b = m/(2k) bits, one hash each. After n real
 * inserts a bank's fill ratio is r(n) = 1 − (1 − 1/b)^n (exact for independent uniform hashes),
 * and a key not in the half is reported by it with probability φ(n) = r(n)^k. (The classic
 * unpartitioned half of m/2 bits would give (1 − (1 − 2/m)^{kn})^k: the same e^{−kn/(m/2)} to
 * first order, the partitioned one slightly higher: (1 − k/(m/2))^n ≤ (1 − 2/m)^{kn}.)
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

/** φ(n): a half with n keys reports a key it does not hold. */
export function halfFp(k: number, bankBits: number, n: number): number {
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
