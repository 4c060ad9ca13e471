/**
 * The reference model of a sharded filter, one op at a time in the linear order the hardware
 * reports (`seq`): S models of the family's shard config, the key's shard from the same H3 as
 * the dispatcher (src/lanes/rtl.ts), and the global aging of the dispatcher — every shard gets the
 * tick op before the insert that follows `period` inserts since the last aging step, and a
 * broadcast op (tick, clear) goes to every shard and restarts the count.
 *
 * As a filter this is the family's filter with m·S bits per segment (S shards of m) and a hash
 * whose index is (shard(x), h_i(x) mod m): one model of it, the single lane's, on the linear order.
 */
import type { MemoryCheck, ResponseFields, StreamModel, StreamRequest } from '../families/types.js';
import { h3Matrix, h3Reference } from '../ir/h3.js';
import { SHARD_SALT } from './rtl.js';

export interface ShardedModelOptions {
  shards: StreamModel[];
  keyBits: number;
  seed: number;
  period: number;
  tickOp: string;
  broadcastOps: readonly string[];
  insertOps: readonly string[];
  /** Zero values of the family's request fields (the dispatcher's tick carries zeros). */
  zeroFields: Record<string, bigint>;
}

export class ShardedModel implements StreamModel {
  private count = 0;
  private readonly rows: bigint[] | null;

  constructor(private readonly o: ShardedModelOptions) {
    const S = o.shards.length;
    this.rows = S > 1 ? h3Matrix(o.seed, SHARD_SALT, o.keyBits, Math.log2(S)) : null;
  }

  shardOf(key: bigint): number {
    return this.rows ? Number(h3Reference(this.rows, key)) : 0;
  }

  apply(req: StreamRequest): ResponseFields {
    const o = this.o;
    if (o.broadcastOps.includes(req.op)) {
      const rs = o.shards.map((s) => s.apply(req));
      this.count = 0;
      return rs[0]!;
    }
    const inserts = o.insertOps.includes(req.op);
    if (inserts && this.count === o.period) {
      for (const s of o.shards) s.apply({ op: o.tickOp, key: 0n, tag: 0, fields: { ...o.zeroFields } });
      this.count = 0;
    }
    const s = this.shardOf(req.key);
    const r = o.shards[s]!.apply(req);
    if (inserts) this.count++;
    return r;
  }

  agingEvents(): number {
    return this.o.shards[0]!.agingEvents();
  }

  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck {
    const all: MemoryCheck = { checked: 0, unit: 'words', mismatches: [], count: 0 };
    this.o.shards.forEach((m, s) => {
      const c = m.compareMemories((mem, addr) => read(`shard${s}_${mem}`, addr));
      all.checked += c.checked;
      all.unit = c.unit;
      all.count += c.count;
      for (const x of c.mismatches) if (all.mismatches.length < 20) all.mismatches.push(`shard ${s}: ${x}`);
    });
    return all;
  }
}
