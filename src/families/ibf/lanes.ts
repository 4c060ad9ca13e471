/**
 * The importance-aware Bloom filter on N lanes over S shards (src/lanes/): each shard is this
 * family's pipeline with 1/S of every bank (cells/S cells, the same k, MAX (so d), P,
 * cellsPerWord, insert scheme, seed and key bits), built `direct` (no response queue, no
 * out_ready, latency 8). Like the stable filter it does not age by count or time — its memory
 * decays insert by insert, each accepted insert decrementing P cells of the words it writes — so
 * there are no ticks and no time; a clear goes to every shard.
 *
 * As a filter the sharded one is S importance-aware filters side by side: the key's shard
 * (shard(x)) holds its k cells (bank i's cell h_i(x) of that shard), and an accepted insert
 * decrements P cells of the k words it writes there, then sets its cells to its importance
 * (Imp-insert) or MAX (M-insert). Each shard has its own generator lanes (xorshift32, seeded from
 * the config seed as on one lane, so every shard starts from the same states), stepped by that
 * shard's accepted inserts only: the sharded model (src/lanes/model.ts) builds S instances of this
 * family's model from the shard config, and each steps its own lanes on the inserts it takes, as
 * the shard's RTL does. An insert refused for its importance (0 or above MAX) steps nothing, in
 * its shard as on one lane.
 *
 * The importance is a request field (in_imp): the lanes carry it with the request to the shard
 * (in<i>_imp → the shard's in_imp; a non-merging lane design passes every request field through),
 * and the sharded model hands the request, fields and all, to the shard's model.
 *
 * The shard keeps cellsPerWord: the deletes are word-local (the P_i cells r_i … r_i + P_i − 1 of
 * the word an insert writes in bank i), so the word is part of the filter's definition, not only
 * of its layout. A shard needs two words per bank (a block RAM of depth >= 2), so at least
 * 2·cellsPerWord cells; with P = 0 (nothing deleted) the words may narrow instead, down to one cell.
 *
 * Its false-positive rate (`shardedFp`). The family's fp (./analysis.ts, ./summary.ts) is the
 * stable point of a cell's Markov chain: per insert, a cell of bank i is set (to the importance,
 * uniform on 1..MAX, or to MAX) with probability s = 1/N and otherwise decremented with
 * probability q_i = (P_i/N)(1 − 1/C) (N cells per bank, C per word); fp = Π_i (1 − π_0^(i)). The
 * chain's step is I + s·A + q_i·B (A: the set, B: the decrement), so its stationary distribution
 * solves π(A + (q_i/s)·B) = 0 and depends on q_i/s = P_i(1 − 1/C) only: N cancels (the k·C cells
 * an insert may decrement are those of its words whatever the size of the bank). A shard keeps k,
 * MAX, P, C and the insert scheme, so its stable point is the one-lane one. Per global insert
 * nothing changes either: a cell of a shard of N/S cells is in the inserting key's shard with
 * probability 1/S, then set with probability S/N and decremented with S·q_i, so its step per
 * global insert, (1 − 1/S)·I + (1/S)·(I + S·s·A + S·q_i·B), is the one-lane one. A shard's
 * Binomial(n, 1/S) share of the inserts matters only before the stable point (where the rate
 * depends on the count); at it, not. So the sharded rate is the family's rate on the shard config,
 * which is the one-lane rate; it errs as the family's own does (cells taken as independent, the
 * insert words uniform: distinct keys). Measured on the models (the README's "On lanes"; 1024
 * cells per bank, MAX = 4, 8-cell words, 30 instances): within two standard errors of it in shards
 * of four words per bank or more, Imp- and M-insert; in shards of two words with P_i = 4 of 8 cells
 * 4.6 % above (0.0411 ± 0.0006 against 0.0393), as the stable filter's two-word shards measure
 * (src/families/stable/lanes.ts) — an effect of so small a shard the analysis does not model.
 * test/families/ibf/lanes.test.ts checks 16 shards (eight words) within 3 %.
 *
 * No merging: a second insert of a key in one cycle decrements P more cells (r_i from the stepped
 * generators) and may write another importance, so a merged group would leave other memories than
 * its inserts one by one (and a merged group carries one request's fields only).
 */
import { type Fail, type LaneSupport, wordLocalShard } from '../types.js';
import { stablePoint } from './analysis.js';
import { deriveIbfSizes } from './config.js';
import type { IbfDerived } from './types.js';

/**
 * One shard: wordLocalShard's sizes, the same insert scheme, k, MAX, P, seed and key bits; refused
 * naming `shards` where a bank would have fewer than two words.
 */
function shardConfig(c: IbfDerived, o: { lanes: number; shards: number }, fail: Fail): IbfDerived {
  const { cells, cellsPerWord } = wordLocalShard(c, o, { fail, what: 'the ibf', decrements: 'deletes' });
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: 'ibf',
    insert: c.insert,
    k: c.k,
    max: c.max,
    cells,
    cellsPerWord,
    P: c.P,
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) => fail(field, `(shard of ${cells} cells per bank) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveIbfSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const ibfLanes: LaneSupport<IbfDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  // The stable point on the shard config (see the comment at the top): the one-lane rate, since a
  // shard keeps k, MAX, P, cellsPerWord and the insert scheme. An Imp-insert chain above
  // MAX_SOLVED is not solved: 1, as the family's own analysis reports it (./summary.ts).
  shardedFp: (c, shards) => {
    const { cells, cellsPerWord } = wordLocalShard(c, { lanes: 1, shards });
    return stablePoint({ ...c, cells, cellsPerWord })?.fp ?? 1;
  },
  // The inserts to the stable point: a cell never set since the clear is the only trace of the
  // start (a set erases the cell's past), probability (1 − 1/cells)^n, about e^-20 after 20 per
  // cell of a bank (each accepted insert sets one cell of every bank). `lanes analyze` measures
  // there, not at the family's capacity (⌊cells·ln 2⌋, before the stable point).
  steadyInserts: (c) => 20 * c.cells,
  // What the analysis takes (./analysis.ts): importances uniform on 1..MAX (an importance of 0 or
  // above MAX is refused and inserts nothing).
  insertFields: (c, rng) => ({ imp: BigInt(1 + Math.floor(rng.float() * c.max)) }),
};
