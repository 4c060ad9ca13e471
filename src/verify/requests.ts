/** Random requests: an op from the mix, a key from the workload, the request fields, the next tag. */
import type { StreamProtocol, StreamRequest } from '../families/types.js';
import type { Workload } from '../model/workloads.js';
import type { Rng } from '../util/rng.js';

export function pickerOf(mix: Record<string, number>, ops: Readonly<Record<string, number>>, rng: Rng): () => string {
  const names = Object.keys(mix).filter((n) => mix[n]! > 0);
  for (const n of names)
    if (!(n in ops)) throw new Error(`mix: '${n}' is not an op of this filter (${Object.keys(ops).join(', ')})`);
  if (names.length === 0) throw new Error('mix: no op has a positive weight');
  const total = names.reduce((s, n) => s + mix[n]!, 0);
  return () => {
    let r = rng.float() * total;
    for (const n of names) if ((r -= mix[n]!) < 0) return n;
    return names[names.length - 1]!;
  };
}

/** A request's fields beyond op, key and tag, and what the caller keeps beside the request. */
export interface Fields<N> {
  fields: Record<string, bigint>;
  note: N;
}

export class RequestSource<N = unknown> {
  constructor(
    private readonly rng: Rng,
    private readonly pick: () => string,
    private readonly workload: Workload,
    private readonly fields: (rng: Rng) => Fields<N>,
    private readonly tagMask: number,
    /**
     * The order of the draws: the one-lane driver draws the key before the fields, the lane
     * driver the fields before the key; a seed's stimulus depends on it, so each keeps its own.
     */
    private readonly fieldsFirst = false,
  ) {}

  /** The request numbered `index` (its tag: the index's low bits); `op` forces the op (no draw). */
  next(index: number, op?: string): { req: StreamRequest; note: N } {
    const name = op ?? this.pick();
    let key: bigint;
    let f: Fields<N>;
    if (this.fieldsFirst) {
      f = this.fields(this.rng);
      key = this.workload.nextKey(this.rng);
    } else {
      key = this.workload.nextKey(this.rng);
      f = this.fields(this.rng);
    }
    return { req: { op: name, key, tag: index & this.tagMask, fields: f.fields }, note: f.note };
  }
}

/** Refuses an op that is not the protocol's. */
export function checkOp(p: StreamProtocol, op: string | undefined, what: string, name: string): void {
  if (op !== undefined && p.ops[op] === undefined)
    throw new Error(`${what}: '${op}' is not an op of ${name} (${Object.keys(p.ops).join(', ')})`);
}
