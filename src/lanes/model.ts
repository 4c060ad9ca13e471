/**
 * The reference model of a sharded filter, one op at a time in the linear order the hardware
 * reports (`seq`): S models of the family's shard config, the key's shard from the same H3 as
 * the dispatcher (src/lanes/rtl.ts), and the global aging of the dispatcher — every shard gets the
 * tick op before the insert that follows `period` inserts since the last aging step, and a
 * broadcast op (tick, clear) goes to every shard and restarts the count. A family that does not
 * age (a set or multiset filter) gives neither `period` nor `time`: only its broadcast ops reach every shard.
 *
 * A family with global time (LaneTime, src/families/types.ts; the TBF) instead gets the time of
 * its place in the order with every request — the count G of every shard's inserts as T+ =
 * ⌊G/block⌋ mod wrap and b = G mod block — and every shard takes one background step (`scan`)
 * per S inserts: right after the insert that reaches a multiple of S, or, with `externalScan`,
 * where the hardware reports it (the end of that insert's cycle), checked to be one per S inserts.
 *
 * As a filter this is the family's filter with m·S bits per segment (S shards of m) and a hash
 * whose index is (shard(x), h_i(x) mod m): one model of it, the single lane's, on the linear order.
 */
import type { LaneTime, MemoryCheck, ResponseFields, StreamModel, StreamRequest } from '../families/types.js';
import { h3FromWords, h3Matrix, h3Tables } from '../ir/h3.js';
import { keyWords } from '../families/streamKit.js';
import { SHARD_SALT } from './rtl.js';

export interface ShardedModelOptions {
  shards: StreamModel[];
  keyBits: number;
  seed: number;
  /** Ticks. */
  period?: number;
  tickOp?: string;
  /** Global time instead of ticks. */
  time?: LaneTime;
  broadcastOps: readonly string[];
  insertOps: readonly string[];
  /** Zero values of the family's request fields (the dispatcher's tick carries zeros). */
  zeroFields: Record<string, bigint>;
}

export class ShardedModel implements StreamModel {
  private count = 0;
  /** The shard hash's byte tables (null for one shard). */
  private readonly shardTables: Uint32Array | null;
  /** Global time: inserts since the last clear, scan steps taken, wraps of the time. */
  private g = 0;
  private scans = 0;
  private wraps = 0;
  /** Scan steps come from `scan()` calls (the hardware's reports) rather than after the S-th insert. */
  externalScan = false;
  /** Scan steps reported where none was due, or missing (with externalScan). */
  readonly problems: string[] = [];

  constructor(private readonly o: ShardedModelOptions) {
    const S = o.shards.length;
    this.shardTables = S > 1 ? h3Tables(h3Matrix(o.seed, SHARD_SALT, o.keyBits, Math.log2(S)), o.keyBits) : null;
  }

  shardOf(key: bigint): number {
    if (!this.shardTables) return 0;
    return h3FromWords(this.shardTables, keyWords([key], this.o.keyBits), Math.ceil(this.o.keyBits / 8));
  }

  apply(req: StreamRequest): ResponseFields {
    const o = this.o;
    if (o.broadcastOps.includes(req.op)) {
      if (o.time) this.finish(); // the steps due before a clear were all reported
      const rs = o.shards.map((s) => s.apply(o.time ? { ...req, fields: { ...req.fields, ...this.now(0n) } } : req));
      this.count = 0;
      this.g = 0;
      this.scans = 0;
      return rs[0]!;
    }
    if (o.time) return this.applyTimed(req);
    const inserts = o.insertOps.includes(req.op);
    if (inserts && o.period !== undefined && this.count === o.period) {
      for (const s of o.shards) s.apply({ op: o.tickOp!, key: 0n, tag: 0, fields: { ...o.zeroFields } });
      this.count = 0;
    }
    const s = this.shardOf(req.key);
    const r = o.shards[s]!.apply(req);
    if (inserts) this.count++;
    return r;
  }

  /** The time fields of a request at the current G (before nothing, `scan` as given). */
  private now(scan: bigint): Record<string, bigint> {
    const t = this.o.time!;
    return {
      tplus: BigInt(Math.floor(this.g / t.block) % t.wrap),
      bcnt: BigInt(this.g % t.block),
      before: 0n,
      scan,
      scanAt: 0n,
    };
  }

  private applyTimed(req: StreamRequest): ResponseFields {
    const o = this.o;
    const S = o.shards.length;
    const r = o.shards[this.shardOf(req.key)]!.apply({ ...req, fields: { ...req.fields, ...this.now(0n) } });
    if (o.insertOps.includes(req.op)) {
      this.g++;
      if (this.g % (o.time!.block * o.time!.wrap) === 0) this.wraps++;
      if (!this.externalScan && this.g % S === 0) this.scan();
      else if (this.externalScan && Math.floor(this.g / S) > this.scans + 1 && this.problems.length < 20)
        this.problems.push(`insert ${this.g}: the scan step after insert ${(this.scans + 1) * S} was not reported`);
    }
    return r;
  }

  /**
   * Global time, with externalScan, after the last op (and before a clear): every step due was
   * reported (the last cycle's too); a problem is recorded otherwise.
   */
  finish(): void {
    const S = this.o.shards.length;
    if (this.o.time && this.externalScan && Math.floor(this.g / S) !== this.scans && this.problems.length < 20)
      this.problems.push(
        `after ${this.g} inserts ${this.scans} scan steps were reported, ${Math.floor(this.g / S)} due`,
      );
  }

  /** Global time: one background step of every shard now (the hardware reported one). */
  scan(): void {
    const o = this.o;
    const S = o.shards.length;
    if (Math.floor(this.g / S) !== this.scans + 1 && this.problems.length < 20)
      this.problems.push(`a scan step after ${this.g} inserts, the ${this.scans + 1}-th: not due`);
    this.scans++;
    for (const s of o.shards)
      s.apply({ op: o.time!.scanOp, key: 0n, tag: 0, fields: { ...o.zeroFields, ...this.now(1n) } });
  }

  /**
   * Global time: the wraps of T+; ticks: every shard ages at once, so shard 0's steps; a family
   * that does not age on lanes but has events of its own (the stable and importance-aware filters'
   * delete rounds, which each shard takes on its own inserts): every shard's, summed.
   */
  agingEvents(): number {
    if (this.o.time) return this.wraps;
    if (this.o.period !== undefined) return this.o.shards[0]!.agingEvents();
    return this.o.shards.reduce((n, m) => n + m.agingEvents(), 0);
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
