/**
 * Multi-lane filters: a config with `lanes: N` (1, 2, 4, 8) and `shards: S` (a power of two,
 * S >= N) runs N request lanes over S shards of the family's pipeline (./rtl.ts), with the
 * linear order exposed as a sequence number and the sharded model (./model.ts) as reference.
 * `LaneFilter` holds the single-lane filter (the config without lanes and shards), the shard's
 * filter and the lane shape; src/config/lanes.ts resolves a config into one.
 */
import { Filter, type ConfiguredFilter } from '../families/filter.js';
import { laneSupport, SHARD_FILL_WHY, type AnalysisValues, type StreamModel } from '../families/types.js';
import { emitVerilog } from '../emit/verilog.js';
import { manifestOf } from '../emit/manifest.js';
import type { Design } from '../ir/types.js';
import type { Rng } from '../util/rng.js';
import { ShardedModel } from './model.js';
import { buildLanes, laneQueueDepth, SEQ_BITS, SHARD_SALT } from './rtl.js';

export const LANE_COUNTS = [1, 2, 4, 8] as const;
export const MAX_SHARDS = 64;

/**
 * `lanes analyze`'s line on the sharded rate `fp` of `shards` shards beside the one-lane rate
 * `one`: "the same as one lane's" when equal (to 1e-9 relative), else both with how many percent
 * more or less, and `why` it differs.
 */
export function shardedFpLine(shards: number, fp: number, one: number, why: string): string {
  if (fp === one || (one > 0 && Math.abs(fp / one - 1) < 1e-9))
    return `fp of ${shards} shards ${fp.toExponential(4)}, the same as one lane's`;
  const pct = one > 0 ? `, ${(100 * Math.abs(fp / one - 1)).toFixed(2)} % ${fp > one ? 'more' : 'less'}` : '';
  return `fp of ${shards} shards ${fp.toExponential(4)} (one lane ${one.toExponential(4)}${pct}): ${why}`;
}

export class LaneFilter implements ConfiguredFilter {
  readonly kind = 'lanes' as const;
  private built: Design | null = null;

  constructor(
    /** The filter the config describes on one lane (the config without lanes and shards). */
    readonly base: Filter,
    /** One shard's filter (1/S of the memory, its tag carrying drop and lane). */
    readonly shard: Filter,
    readonly lanes: number,
    readonly shards: number,
    /** Heads of one cycle with the same key run as one shard access (the config's `merge`). */
    readonly merge = false,
  ) {}

  get name(): string {
    return this.base.name;
  }

  /** The one-lane description with the lane shape. */
  describe(): string {
    return `${this.base.describe()}, ${this.lanes} lanes over ${this.shards} shards${this.merge ? ', merging identical keys' : ''}`;
  }

  private support() {
    return laneSupport(this.base.family)!;
  }

  /**
   * Inserts between aging steps: the generation (ticks), or the block of one time step (global
   * time); null for a family that does not age (a set or multiset filter).
   */
  period(): number | null {
    const sup = this.support();
    return sup.time ? sup.time(this.shard.config).block : (sup.period?.(this.base.config) ?? null);
  }

  /**
   * A family that does not age: the inserts `lanes analyze` measures its rate after — the inserts
   * after which its state is steady (LaneSupport.steadyInserts: its fp is that state's), else its
   * capacity (distinct keys); null if neither.
   */
  measureInserts(): number | null {
    return this.support().steadyInserts?.(this.base.config) ?? this.base.capacity() ?? null;
  }

  /** The request fields of a measured insert (LaneSupport.insertFields; none by default). */
  insertFields(rng: Rng): Record<string, bigint> {
    return this.support().insertFields?.(this.base.config, rng) ?? {};
  }

  /** `measureInserts` is the steady state's (any keys), not a capacity's (distinct keys). */
  measuresSteadyState(): boolean {
    return this.support().steadyInserts !== undefined;
  }

  /** How the family ages on lanes: by ticks (the APBF's generations), by global time (the TBF's), or not at all. */
  aging(): 'ticks' | 'time' | 'none' {
    const sup = this.support();
    return sup.time ? 'time' : sup.period ? 'ticks' : 'none';
  }

  /** The family ages by ticks (the APBF's generations). */
  ticks(): boolean {
    return this.aging() === 'ticks';
  }

  /** Global time (LaneTime), read from the shard's config (its TΩ may exceed the one-lane one). */
  private time() {
    const sup = this.support();
    return sup.time ? sup.time(this.shard.config) : null;
  }

  /** The shard protocol's ops that insert (the dispatcher counts them). */
  private insertOps(): string[] {
    const p = this.shard.protocol();
    return Object.keys(p.ops).filter((n) => p.semantics[n]?.inserts);
  }

  /**
   * The analysis of the sharded filter: the one-lane figures (window and slack are the same, the
   * aging being global) with the false-positive rate of S shards (the family's shardedFp) beside
   * the one-lane rate.
   */
  analyze(): { values: AnalysisValues & { fpOneLane: number }; headline: string; lines: string[] } {
    const a = this.base.analyze();
    const sup = this.support();
    const fp = sup.shardedFp(this.base.config, this.shards);
    const why = sup.shardedFpWhy ? sup.shardedFpWhy(this.base.config, this.shards) : SHARD_FILL_WHY;
    const one = a.values.fp;
    return {
      values: { ...a.values, fp, fpOneLane: one },
      headline: a.headline,
      lines: [shardedFpLine(this.shards, fp, one, why), ...a.lines],
    };
  }

  /** Cycles from a lane's accepted request to its out_valid with no conflict and out_ready high. */
  latency(): number {
    return this.shard.protocol().latency + 4;
  }

  design(): Design {
    if (this.built) return this.built;
    const p = this.shard.protocol();
    const sup = this.support();
    const codes = (names: readonly string[]): number[] => names.map((n) => p.ops[n]!);
    const time = this.time();
    this.built = buildLanes({
      name: this.name,
      core: this.shard.design(),
      lanes: this.lanes,
      shards: this.shards,
      keyBits: this.base.config.keyBits,
      tagBits: this.base.config.tagBits,
      queueDepth: laneQueueDepth(this.shard.protocol().latency),
      seed: this.base.config.seed,
      ...(time
        ? { time: { block: time.block, wrap: time.wrap, scanCode: p.ops[time.scanOp]! } }
        : this.ticks()
          ? {
              period: this.period()!,
              tickCode: p.ops[sup.tickOp!]!,
              ...(sup.tickReady ? { tickReady: sup.tickReady } : {}),
            }
          : {}),
      interval: sup.interval?.(this.shard.config) ?? 1,
      broadcastCodes: codes(sup.broadcastOps),
      insertCodes: codes(this.insertOps()),
      request: p.request,
      response: p.response,
      meta: this.parameters(),
      merge: this.merge
        ? {
            query: p.ops[sup.merge!.query]!,
            insert: p.ops[sup.merge!.insert]!,
            testAndInsert: p.ops[sup.merge!.testAndInsert]!,
          }
        : null,
    });
    return this.built;
  }

  parameters(): Record<string, unknown> {
    return {
      ...this.base.parameters(),
      lanes: this.lanes,
      shards: this.shards,
      ...(this.merge ? { merge: true } : {}),
      shardParameters: this.shard.parameters(),
      seqBits: SEQ_BITS,
      laneQueue: laneQueueDepth(this.shard.protocol().latency),
      latency: this.latency(),
      shardSalt: SHARD_SALT,
    };
  }

  /** The sharded model; `seed` routes the keys by another shard hash (the tests' wrong mapping). */
  model(seed: number = this.base.config.seed): ShardedModel {
    const p = this.shard.protocol();
    const sup = this.support();
    const shards: StreamModel[] = Array.from({ length: this.shards }, () => this.shard.model());
    return new ShardedModel({
      shards,
      keyBits: this.base.config.keyBits,
      seed,
      ...(sup.time ? { time: this.time()! } : this.ticks() ? { period: this.period()!, tickOp: sup.tickOp! } : {}),
      broadcastOps: sup.broadcastOps,
      insertOps: this.insertOps(),
      zeroFields: Object.fromEntries(p.request.map((f) => [f.name, 0n])),
    });
  }

  verilog(): string {
    return emitVerilog(this.design());
  }

  manifest(): Record<string, unknown> {
    const d = this.design();
    const p = this.shard.protocol();
    const { meta: _meta, ...base } = manifestOf(d);
    void _meta;
    return {
      ...base,
      family: this.base.family.id,
      lanes: this.lanes,
      shards: this.shards,
      latency: {
        cycles: this.latency(),
        maxStallCycles: this.shard.protocol().maxStallCycles,
        note: "from a lane's accepting cycle to out<i>_valid, with no shard conflict and out<i>_ready high; after reset the shards clear their memories first (up to maxStallCycles) while in<i>_ready already takes requests, which wait",
      },
      opcodes: p.ops,
      sequence: {
        bits: SEQ_BITS,
        note: this.merge
          ? 'out<i>_seq numbers every executed op in one total order (cycle by cycle; within a cycle by shard, and within a shard its queries, then its test-and-insert, then its other ops, each in lane order), modulo 2^bits; heads of a cycle with the same key share one shard access (merge)'
          : 'out<i>_seq numbers every executed op in one total order (cycle by cycle, lane 0 first), modulo 2^bits',
      },
      ...(this.time()
        ? {
            scan: {
              note: `global time: every lane's inserts advance the shards' time one step every ${this.time()!.block} inserts; every shard takes one background step (the family's periodic work) per ${this.shards} inserts, at the end of the cycle whose inserts reach the next multiple, and out<i>_scan marks the op that is last in that cycle's linear order (the step follows it)`,
            },
          }
        : {}),
      parameters: this.parameters(),
    };
  }

  files(): Record<string, string> {
    return {
      [`${this.name}.v`]: this.verilog(),
      [`${this.name}.manifest.json`]: JSON.stringify(this.manifest(), null, 2) + '\n',
    };
  }
}

/** A configured filter of either kind, told apart by `kind` ('one' | 'lanes'). */
export type AnyFilter = Filter | LaneFilter;
