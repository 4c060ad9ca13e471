/**
 * The dispatcher's grant rule as a cycle model, to ask what merging identical keys would gain
 * before building it. Every lane offers a request every cycle (the `lanes throughput`
 * setting); each cycle the heads are visited in a priority order that rotates by one lane per
 * cycle, and a head is granted when no earlier head of the cycle took its shard — as
 * src/lanes/rtl.ts's fast mode does (the model leaves out the end-of-generation rule, one op per
 * cycle while fewer than 3N inserts are left in a generation by its count without the last two
 * cycles', always when g < 3N, the pause of HOLD cycles after a broadcast, and
 * the once-per-interval grants of a shard that takes an op only every k cycles — the basic Bloom
 * filter's, for which it overstates the throughput). With `merge`, a head whose shard was taken by a head with the
 * same key is granted too: the shard runs the group as one access (queries before the insert:
 * one test-and-insert answers every query of the group with the state before it), so a group of
 * identical keys costs one shard cycle.
 *
 * `test/lanes/lanes.test.ts` checks the model without merging against the RTL's measured
 * ops/cycle; `bloomforge lanes merge` prints both columns.
 */
import { Rng } from '../util/rng.js';
import type { Workload } from '../model/workloads.js';

export interface GrantModelOptions {
  lanes: number;
  /** The key's shard (the dispatcher's H3). */
  shardOf: (key: bigint) => number;
  workload: Workload;
  cycles: number;
  merge: boolean;
  seed: number;
}

/** Ops granted per cycle, on average over `cycles`. */
export function grantModel(o: GrantModelOptions): number {
  const rng = new Rng(o.seed);
  const N = o.lanes;
  const heads = Array.from({ length: N }, () => o.workload.nextKey(rng));
  const shards = heads.map((k) => o.shardOf(k));
  const takenBy = new Map<number, bigint>();
  let granted = 0;
  for (let cycle = 0; cycle < o.cycles; cycle++) {
    takenBy.clear();
    for (let j = 0; j < N; j++) {
      const i = (cycle + j) % N;
      const owner = takenBy.get(shards[i]!);
      if (owner === undefined) takenBy.set(shards[i]!, heads[i]!);
      else if (!(o.merge && owner === heads[i])) continue;
      granted++;
      heads[i] = o.workload.nextKey(rng);
      shards[i] = o.shardOf(heads[i]!);
    }
  }
  return granted / o.cycles;
}
