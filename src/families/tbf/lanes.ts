/**
 * TBF/BTBF on N lanes over S shards (src/lanes/): each shard is this family's pipeline with 1/S of
 * every timer bank, the same k, w, B, and global time — the dispatcher counts every lane's inserts
 * as (T+, b) and gives each request the time of its place in the linear order (LaneTime in
 * src/families/types.ts), so T+ advances every B inserts of all lanes together, as on one lane.
 *
 * The expiry scan. On one lane every insert scans one word of every bank, so a bank of W words is
 * swept in W inserts, which must fit the B·(P + 1) inserts a timer stays markable (the scan bound
 * of ./config.ts). A shard's bank has W_s words; every shard scans one word per S inserts of all
 * lanes, at the end of the cycle whose inserts reach the next multiple of S, so a sweep takes at
 * most W_s·S + N − 1 inserts: the shard's padding is raised to the least P with
 *     W_s·S + N − 1 ≤ B·(P + 1)
 * (P changes TΩ, where timestamps wrap, not the filter's answers), and the shard's timers per word
 * are chosen for it, as ./config.ts chooses one lane's, for the fewest block RAMs (ties: the most
 * timers per word, the least padding; a `timersPerWord` in the config is one lane's and not used).
 *
 * The scanner leaves alone the lanes written by the op in its slot and by the op one slot ahead
 * (their values are not in the word it read): they must be too young to be stale. The dispatcher
 * grants inserts only in cycles where what it writes to any shard enters the core the next cycle
 * (src/lanes/rtl.ts), so an insert one slot ahead of a scan step was granted the cycle before it,
 * or earlier with no insert granted in between. Its timestamp is T+ before its own insert, the
 * first of that cycle at worst, and the step's time is after the next cycle's last insert: at
 * most 2N inserts later, so its age is at most ⌊(2N − 1)/B⌋ + 1 steps; stale is ⌈w/B⌉ + 1 or more.
 * (With N = 1 that is the one-lane rule of ./config.ts: w ≥ 2 when B = 1.) The same bound keeps
 * the time a request carries — up to 2N inserts before its own — within one wrap of T+: the shard
 * adds them with one conditional subtraction. Checked by a run at the bound (w = 2N, B = 1):
 * below it, w = 2N − 1, a run on 2 lanes gave wrong answers.
 */
import { type Fail, type LaneSupport, shardsHint } from '../types.js';
import { btbfShape } from './decision.js';
import { binomialExpectation } from '../../analysis/stats.js';
import { lambdaMax, standardFalsePositiveRate } from './analysis.js';
import { tbfBankBlockRams } from './config.js';
import type { TbfDerived } from './types.js';

function shardConfig(c: TbfDerived, o: { lanes: number; shards: number; merge?: boolean }, fail: Fail): TbfDerived {
  const N = o.lanes;
  const S = o.shards;
  if (c.decision)
    fail(
      'decision',
      "the decision unit does not run on lanes yet (its posterior table is for one filter's timer counts, not a shard's)",
    );
  const M = c.timersPerBank / S;
  if (!Number.isInteger(M) || M < 2)
    fail(
      'shards',
      `${S} shards leave ${c.timersPerBank}/${S} timers per bank; a shard needs at least 2 ` +
        `(${shardsHint(c.timersPerBank / 2, N, 'a larger filter')})`,
    );
  const B = c.blockSize;
  const youngest = Math.floor((2 * N - 1) / B) + 1;
  if (youngest >= c.markAge)
    fail(
      'lanes',
      `with ${N} lanes an insert can be ${2 * N} inserts older than the scan that passes its word, ${youngest} ` +
        `steps of T+, and a timer is stale at ⌈w/B⌉ + 1 = ${c.markAge}; use fewer lanes or a larger window`,
    );
  // The shard's word: the packing with the fewest iCE40 block RAMs whose sweep fits some padding
  // the timer width allows (ties: more timers per word, the least padding); one lane's choice
  // need not be a shard's, whose banks are S times shallower.
  const maxPadding = c.tEps - 1 - c.markAge;
  const paddingFor = (t: number): number => Math.max(c.padding, Math.ceil(((M / t) * S + N - 1) / B) - 1);
  let t = 0;
  for (let cand = 1; cand <= Math.min(64, M / 2); cand *= 2) {
    if (paddingFor(cand) > maxPadding) continue;
    if (t === 0 || tbfBankBlockRams(M, c.timerBits, cand) <= tbfBankBlockRams(M, c.timerBits, t)) t = cand;
  }
  if (t === 0) {
    const best = Math.min(64, M / 2);
    fail(
      'lanes',
      `a shard's expiry scan steps once per ${S} inserts, so sweeping its ${M / best} words takes up to ` +
        `${(M / best) * S + N - 1} inserts (up to ${N - 1} more to the end of a cycle), which needs padding >= ` +
        `${paddingFor(best)}; ${c.timerBits} timer bits allow ${maxPadding} (use more timerBits)`,
    );
  }
  const words = M / t;
  const P = paddingFor(t);
  return {
    ...c,
    name: `${c.name}_shard`,
    timersPerBank: M,
    timersPerWord: t,
    wordsPerBank: words,
    padding: P,
    tOmega: c.markAge + P,
    laneTime: { lanes: N, shards: S, ...(o.merge ? { merge: true } : {}) },
  };
}

/**
 * The standard false-positive rate of S shards on a stream of distinct keys: at block counter b
 * the L(b) = ⌈(w − b)/B⌉·B + b live inserts fall Binomial(L, 1/S) into a probe's shard, whose
 * banks have timersPerBank/S timers: E[(1 − (1 − S/M)^n)^k] over that binomial, the mean over b
 * (at most 64 values of b, spread). One shard is the one-lane rate.
 */
export function tbfShardedFp(c: TbfDerived, shards: number): number {
  const s = btbfShape(c);
  if (shards === 1) return standardFalsePositiveRate(s);
  const q = 1 - shards / c.timersPerBank;
  const bs = Math.min(c.blockSize, 64);
  let total = 0;
  for (let i = 0; i < bs; i++) {
    const b = Math.floor((i * c.blockSize) / bs);
    const L = lambdaMax(s, b) * c.blockSize + b;
    total += binomialExpectation(L, 1 / shards, (n) => (1 - q ** n) ** c.k);
  }
  return total / bs;
}

export const tbfLanes: LaneSupport<TbfDerived> = {
  time: (c) => ({ block: c.blockSize, wrap: c.tOmega + 1, scanOp: 'query' }),
  broadcastOps: ['clear'],
  // Merging: a group's inserts fall at consecutive times and the last one's timers are what they
  // leave, so its shard writes that time (in_last) and answers as of the first (in_before).
  merge: { query: 'query', insert: 'insert', testAndInsert: 'testAndInsert' },
  shard: shardConfig,
  shardedFp: tbfShardedFp,
};
