/**
 * A configured filter: a family and one of its derived configs, held together so that code
 * outside the family folders (CLI, verifier, bench, experiments, tests) can build, describe,
 * simulate and measure it without asking which family it is.
 */
import { withControl } from '../transforms/control.js';
import { bramBlocks, DEFAULT_TARGET } from '../device/index.js';
import { manifestOf } from '../emit/manifest.js';
import { emitVerilog } from '../emit/verilog.js';
import type { Design } from '../ir/types.js';
import { keyMixer } from '../model/keyMix.js';
import { withKeyMix } from '../transforms/keyMix.js';
import type { Rng } from '../util/rng.js';
import type {
  AgingRun,
  Analysis,
  FilterConfig,
  FilterFamily,
  SnapshotView,
  SoftwareFilter,
  StreamModel,
  StreamProtocol,
} from './types.js';

/**
 * What the commands need of any configured filter, one-lane (`Filter`) or N-lane (`LaneFilter`,
 * src/lanes/filter.ts, which adds its lane shape): build it, describe and analyze it, write it.
 * `kind` tells the two apart where a command must (verify drives lanes differently).
 */
export interface ConfiguredFilter {
  readonly kind: 'one' | 'lanes';
  readonly name: string;
  /** The filter on one lane: the filter itself, or an N-lane config without lanes and shards. */
  readonly base: Filter;
  /** Request lanes (1 for a one-lane filter) and shards of the memory (1). */
  readonly lanes: number;
  readonly shards: number;
  design(): Design;
  verilog(): string;
  /** The manifest written next to the Verilog. */
  manifest(): Record<string, unknown>;
  /** <name>.v and <name>.manifest.json (the golden files; the whole IP folder: src/ip/package.ts). */
  files(): Record<string, string>;
  describe(): string;
  analyze(): Analysis;
  /** Cycles from a request's accepting cycle to its response, with out_ready high (and no conflict). */
  latency(): number;
  parameters(): Record<string, unknown>;
}

export class Filter<C extends FilterConfig = FilterConfig> implements ConfiguredFilter {
  readonly kind = 'one' as const;
  readonly lanes = 1;
  readonly shards = 1;
  private built: Design | null = null;
  private withCtl: Design | null = null;
  private proto: StreamProtocol | null = null;

  constructor(
    readonly family: FilterFamily<C>,
    readonly config: C,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** A one-lane filter is its own base. */
  get base(): Filter {
    return this as unknown as Filter;
  }

  latency(): number {
    return this.protocol().latency;
  }

  /** The pipeline (built once), with the key mix in front of it when the config asks for one. */
  design(): Design {
    return (this.built ??= this.mixer()
      ? withKeyMix(this.family.build(this.config), this.config.seed)
      : this.family.build(this.config));
  }

  /**
   * The pipeline with the control port (src/transforms/control.ts: counters, freeze, a scan chain over
   * every register, word access to every block RAM), built once.
   */
  controlDesign(): Design {
    const p = this.protocol();
    const codes = (what: 'inserts' | 'removes' | 'clears'): number[] =>
      Object.entries(p.ops)
        .filter(([op]) => p.semantics[op]?.[what])
        .map(([, code]) => code);
    return (this.withCtl ??= withControl(this.design(), {
      insertOps: codes('inserts'),
      removeOps: codes('removes'),
      clearOps: codes('clears'),
      ...this.family.control(this.config),
    }));
  }

  /** The key mix of the config (null: keys go to the hashes as they are). */
  mixer(): ((key: bigint) => bigint) | null {
    return keyMixer(this.config.keyMix, this.config.keyBits, this.config.seed);
  }

  protocol(): StreamProtocol {
    return (this.proto ??= this.family.protocol(this.config));
  }

  /** A fresh reference model in its initial state (keys mixed as the hardware mixes them). */
  model(): StreamModel {
    const inner = this.family.model(this.config);
    const mix = this.mixer();
    if (!mix) return inner;
    return {
      apply: (req) => inner.apply({ ...req, key: mix(req.key) }),
      agingEvents: () => inner.agingEvents(),
      ...(inner.occupancy ? { occupancy: () => inner.occupancy!() } : {}),
      compareMemories: (read) => inner.compareMemories(read),
    };
  }

  /**
   * The reference model loaded from a control-port snapshot, keys mixed as `model()` mixes them.
   */
  modelFromSnapshot(view: SnapshotView): StreamModel {
    const inner = this.family.fromSnapshot(this.config, view);
    const mix = this.mixer();
    if (!mix) return inner;
    return {
      apply: (req) => inner.apply({ ...req, key: mix(req.key) }),
      agingEvents: () => inner.agingEvents(),
      ...(inner.occupancy ? { occupancy: () => inner.occupancy!() } : {}),
      compareMemories: (read) => inner.compareMemories(read),
    };
  }

  parameters(): Record<string, unknown> {
    const p = this.family.parameters(this.config);
    return this.config.keyMix === 'spn' ? { ...p, keyMix: 'spn' } : p;
  }

  describe(): string {
    return this.family.describe(this.config);
  }

  analyze(): Analysis {
    return this.family.analyze(this.config);
  }

  /**
   * The software filter. With a key mix, each key stream is mixed once when a filter is made
   * (outside the timed loop of `bench`: the mix is a per-key precomputation there, say so beside
   * the figures).
   */
  software(): SoftwareFilter {
    const inner = this.family.software(this.config);
    const mix = this.mixer();
    if (!mix) return inner;
    let cached: { keys: readonly bigint[]; mixed: bigint[] } | null = null;
    return {
      ...inner,
      fresh(keys) {
        if (cached?.keys !== keys) cached = { keys, mixed: keys.map(mix) };
        return inner.fresh(cached.mixed);
      },
    };
  }

  window(): number | null {
    return this.family.window(this.config);
  }

  /** Keys the filter is sized for, when the family says (a set filter's n). */
  capacity(): number | null {
    return this.family.capacity?.(this.config) ?? null;
  }

  slack(): number {
    return this.family.slack(this.config);
  }

  /** What the aging events are called and a run crossing enough of them (null: the filter does not age). */
  aging(): { name: string; run: AgingRun } | null {
    const a = this.family.aging;
    return a ? { name: a.name, run: a.run(this.config) } : null;
  }

  /**
   * The op mix of a membership stream (simulate, the no-false-negative checks): test-and-insert
   * per key, or an insert and a query where the filter has no test-and-insert.
   */
  membershipMix(): Record<string, number> {
    const ops = this.protocol().ops;
    if ('testAndInsert' in ops) return { testAndInsert: 1 };
    if ('insert' in ops && 'query' in ops) return { insert: 1, query: 1 };
    throw new Error(`${this.config.filter}: no test-and-insert op, nor insert and query`);
  }

  verifyMix(): Record<string, number> {
    return { ...this.family.verifyMix };
  }

  /** Random values of the request fields (none when the protocol has none). */
  requestFields(rng: Rng): Record<string, bigint> {
    return this.family.requestFields?.(this.config, rng) ?? {};
  }

  verilog(): string {
    return emitVerilog(this.design());
  }

  /**
   * The manifest written next to the Verilog: ports, memories, latency, op codes, the request and
   * response fields, parameters and block RAM use.
   */
  manifest(): Record<string, unknown> {
    const d = this.design();
    const p = this.protocol();
    const { meta: _meta, ...base } = manifestOf(d);
    void _meta; // the same object as `parameters` (with latency and op codes), written once
    return {
      ...base,
      family: this.family.id,
      latency: {
        cycles: p.latency,
        note: 'from the accepting cycle of a request to out_valid, with out_ready high',
      },
      initiationInterval: p.initiationInterval ?? 1,
      responseQueue: p.queueDepth,
      opcodes: p.ops,
      request: p.request.map((f) => ({ name: f.name, port: f.port, width: f.width })),
      response: p.response.map((f) => ({ name: f.name, port: f.port, width: f.width })),
      parameters: this.parameters(),
      blockRam: {
        bits: base.memories.reduce((s, m) => s + m.bits, 0),
        memories: base.memories.length,
        ice40Blocks: base.memories.reduce((s, m) => s + bramBlocks(DEFAULT_TARGET, m.width, m.depth), 0),
        note: 'ice40Blocks counts SB_RAM40_4K at the best of their 256x16/512x8/1024x4/2048x2 modes; Yosys reports the real count (npx bloomforge synth)',
      },
    };
  }

  manifestJson(): string {
    return JSON.stringify(this.manifest(), null, 2) + '\n';
  }

  /** The files `generate` writes: <name>.v and <name>.manifest.json. */
  files(): Record<string, string> {
    return { [`${this.name}.v`]: this.verilog(), [`${this.name}.manifest.json`]: this.manifestJson() };
  }
}
