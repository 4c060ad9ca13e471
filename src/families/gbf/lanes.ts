/**
 * The GBF on N lanes over S shards (src/lanes/): each shard is this family's pipeline with 1/S of
 * every bank (cellsPerBank/S cells, the same k0 and k1, seed and key bits), built `direct` (no
 * response queue). A GBF does not age by count — its memory decays insert by insert, each insert
 * rewriting its own K cells — so there are no ticks and no time; a clear goes to every shard.
 * The decision unit is refused for now (see `shardConfig`).
 *
 * As a filter the sharded GBF is the family's filter whose cell in bank j is (shard(x), h_j(x)):
 * K banks, each insert writing one cell of each bank of its key's shard. Its false-positive rate
 * (`shardedFp`): the family's fp (./summary.ts) is the steady state, every cell written, where a
 * cell is 0 with probability α = k0/K whatever the size, n or m: (k0/K)^k0 (k1/K)^k1. A probe's
 * shard took Binomial(n, 1/S) of n inserts into m/S cells, but that share only sets how soon the
 * shard reaches the steady state (and only barely: E[(1 − KS/m)^N] over the binomial is
 * (1 − K/m)^n, the one-lane share of untouched cells, exactly), not the state itself; so the
 * average over the binomial that the set filters take (src/families/bloom/lanes.ts) is, in the
 * steady state, the one-lane rate again, and the cell-independent analysis sees no change.
 *
 * What sharding does change is the size of a bank, c/S cells instead of c, and with it what that
 * analysis leaves out: two of a probe's cells last written by one item, whose roles come from one
 * rotation and so agree with the probe's together (sharedWriterExcess in ./analysis.ts: a relative
 * excess of order K²/c, exact by a sum over subsets of the banks). The sharded rate is the family's
 * rate with the excess of a shard's banks in place of that of one lane's,
 *     fp · (1 + e(c/S)) / (1 + e(c)):
 * for gbf_k4_c4096 on 16 shards 1.5 % above the one-lane rate, on 64 shards 6.3 % (computed; the
 * test measures k0 = k1 = 3 over 64 shards of 16 cells per bank against it). It errs by the factor 1 + e(c) the family's own rate errs by.
 */
import { type Fail, type LaneSupport, shardsHint } from '../types.js';
import { freshHitProbability, sharedWriterExcess } from './analysis.js';
import { deriveGbfSizes } from './config.js';
import { gbfShape } from './decision.js';
import type { GbfDerived } from './types.js';

/**
 * One shard: cellsPerBank/S cells per bank (at least 2: a block RAM of depth >= 2 words of at
 * least one cell), the word width kept where the shallower bank allows it, and the window (the
 * load the figures are for: m/w bits per item) divided by S like the cells.
 */
function shardConfig(c: GbfDerived, o: { lanes: number; shards: number }, fail: Fail): GbfDerived {
  const S = o.shards;
  if (c.decision)
    fail(
      'decision',
      'the decision unit is not built for lanes yet (its posterior table is for one filter of m cells taking every ' +
        'insert, not a shard of m/S taking Binomial(n, 1/S) of them): drop decision or use one lane',
    );
  const cells = c.cellsPerBank / S;
  if (!Number.isInteger(cells) || cells < 2)
    // (Below S, so within the shards field's own bound.)
    fail(
      'shards',
      `${S} shards leave ${c.cellsPerBank}/${S} cells per bank of the gbf; a shard needs at least 2` +
        ` (${shardsHint(c.cellsPerBank / 2, o.lanes, 'a larger cellsPerBank')})`,
    );
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: 'gbf',
    k0: c.k0,
    k1: c.k1,
    cellsPerBank: cells,
    wordBits: Math.min(c.wordBits, cells / 2),
    window: Math.max(1, Math.ceil(c.window / S)),
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) => fail(field, `(shard of ${cells} cells per bank) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveGbfSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const gbfLanes: LaneSupport<GbfDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  // An insert answers 0 (hit, c0 and c1: ./stream.ts, and the RTL's outputs gated by the query
  // bit) and writes each of its K cells to a value that depends on the key alone (its bank's role
  // under the key's rotation ρ), so inserting the key again at once changes no cell. A merged
  // group's queries answer as of before its insert, as the test-and-insert does.
  merge: { query: 'query', insert: 'insert', testAndInsert: 'testAndInsert' },
  // No capacity: `lanes analyze` measures after 20 inserts per cell of a bank, when a cell is left
  // unwritten with probability about e^-20 (each insert writes one cell of every bank).
  steadyInserts: (c) => 20 * c.cellsPerBank,
  // The steady state, every shard's cells written: see the comment at the top.
  shardedFp: (c, shards) => {
    const fp = freshHitProbability(gbfShape(c));
    if (shards === 1) return fp;
    const excess = (cells: number): number => sharedWriterExcess(c.k0, c.k1, cells);
    return (fp * (1 + excess(c.cellsPerBank / shards))) / (1 + excess(c.cellsPerBank));
  },
  shardedFpWhy: (c, shards) =>
    `a shard's banks hold ${c.cellsPerBank / shards} cells instead of ${c.cellsPerBank}, so more of a probe's cells ` +
    'were last written by one item (the steady state itself is the same)',
};
