/**
 * The interface every filter family implements, and the stream protocol its pipeline speaks.
 *
 * A family is one folder under src/families/ behind `FilterFamily`, listed once in
 * src/families/index.ts. Everything outside the folders — the CLI, the stream verifier, the
 * bench, the experiments, `make generate` and the conformance tests — works on a family and one
 * of its configs through this interface (usually through the `Filter` façade in ./filter.ts) and
 * never asks which family it is.
 *
 * Every pipeline has the same handshake (all synchronous to the rising edge of clk):
 *   in_valid/in_ready, in_op, in_key, in_tag, the family's extra request inputs; out_valid/
 *   out_ready, out_tag and the family's response outputs (one of them `out_hit`). Responses come
 *   in request order with the request's tag; `latency` cycles after acceptance with out_ready high.
 */
import type { z } from 'zod';
import type { ComputedTable } from '../analysis/table.js';
import type { Target } from '../device/index.js';
import type { Design } from '../ir/types.js';
import type { Rng } from '../util/rng.js';
import type { KeyMix } from '../model/keyMix.js';

/** Throws a ConfigError `<source>: field '<field>': <message>`. */
export type Fail = (field: string, message: string) => never;

/** What every family's derived config has. */
export interface FilterConfig {
  name: string;
  /** The config's `filter` field: one of the family's `filters`. */
  filter: string;
  keyBits: number;
  tagBits: number;
  seed: number;
  target: Target;
  /** Set when the planner chose the sizes: the intent it planned for. */
  planned?: Readonly<Record<string, unknown>>;
  /**
   * The key mix before the hashes ('none': H3 of the key itself), set by config resolution for
   * every family and applied by the `Filter` (design, model, software): src/model/keyMix.ts.
   */
  keyMix?: KeyMix;
}

// ---- stream protocol ---------------------------------------------------------------------

/** An extra request input or a response output: a named field on a port. */
export interface PortField {
  /** Field name in requests/responses (e.g. 'ratio', 'hit', 'lambda'). */
  name: string;
  /** Port name on the design (e.g. 'in_ratio', 'out_hit'). */
  port: string;
  width: number;
}

/** What an op does, for the scoreboard that checks answers against the exact window. */
export interface OpSemantics {
  /** Answers membership (as of before its own insert, for test-and-insert). */
  queries?: boolean;
  inserts?: boolean;
  clears?: boolean;
  /** Ages the filter without an insert (a forced shift): the exact window no longer applies. */
  ages?: boolean;
  /** Removes (decrements) a key: a multiset op; the exact window no longer applies. */
  removes?: boolean;
}

export interface StreamProtocol {
  /** Op name -> in_op code. */
  ops: Readonly<Record<string, number>>;
  semantics: Readonly<Record<string, OpSemantics>>;
  /** Request inputs beyond in_valid, in_op, in_key, in_tag and out_ready. */
  request: readonly PortField[];
  /** Response outputs beyond out_valid and out_tag; one of them is named 'hit'. */
  response: readonly PortField[];
  /** Cycles from the accepting edge to out_valid, with out_ready high. */
  latency: number;
  /** Entries of the response queue. */
  queueDepth: number;
  /**
   * The longest run of cycles in which in_ready may stay low while out_ready is high (the
   * reset/clear sweep, a forced aging step waiting for a background clear). A run that goes
   * longer without accepting a request or giving a response is stuck.
   */
  maxStallCycles: number;
  /** Cycles between accepted requests at best (default 1: one op per cycle); the manifest's `initiationInterval`. */
  initiationInterval?: number;
}

export interface StreamRequest {
  op: string;
  key: bigint;
  tag: number;
  /** Values of the protocol's request fields, by field name. */
  fields: Record<string, bigint>;
}

/** Values of the protocol's response fields, by field name. */
export type ResponseFields = Record<string, bigint>;

/** A comparison of a design's memories with the model's state. */
export interface MemoryCheck {
  /** How many units were compared, and what a unit is ('words', 'timers'). */
  checked: number;
  unit: string;
  /** The first few differences, one line each; `count` counts all. */
  mismatches: string[];
  count: number;
}

/** The reference model as the stream verifier drives it. */
/** A snapshot as a family's model loader reads it. */
export interface SnapshotView {
  reg(name: string): bigint;
  read(memory: string, addr: number): bigint;
  /**
   * A control-port counter's value in the snapshot ('requests', …, 'events', 'occupancy'): its
   * halves, pending step and pending event added up as the running design would count them.
   */
  counter(name: string): bigint;
}

export interface StreamModel {
  /** Executes one accepted request and returns the response the hardware must give. */
  apply(req: StreamRequest): ResponseFields;
  /** Aging events so far (generation shifts, wraps of T+); 0 for filters that do not age. */
  agingEvents(): number;
  /**
   * The occupancy estimate the control port shows (FilterFamily.control), in the model's terms;
   * absent where the family names none.
   */
  occupancy?(): number;
  /** Compares the design's memories (read through `read`) with the model's state. */
  compareMemories(read: (memory: string, addr: number) => bigint): MemoryCheck;
}

/** A run at one request per cycle that crosses `minEvents` aging events (zero-stall check, bench). */
export interface AgingRun {
  ops: number;
  mix: Record<string, number>;
  minEvents: number;
}

// ---- planner -------------------------------------------------------------------------------

/** A command-line option a family adds to a command; values arrive as strings. */
export interface OptionSpec {
  /** commander flags, e.g. '--max-npws <x>'. */
  flags: string;
  description: string;
  /** The values the option takes, when it takes a fixed set: any other is refused as the command line is read. */
  choices?: () => readonly string[];
}

export interface PlanConstraints {
  filter: string;
  /** The sliding window (keys) a windowed filter must cover, or the items a set filter must hold. */
  window: number;
  fp: number;
  target?: Target;
  name?: string;
  keyBits?: number;
  seed?: number;
  /** Family constraints (e.g. maxNpws, maxSlack), by camel-case name. */
  extra: Record<string, number | undefined>;
}

export interface Candidate<C extends FilterConfig = FilterConfig> {
  config: C;
  fp: number;
  memoryBits: number;
  blockRams: number;
  bitsPerElement: number;
  /** Null when the candidate meets every constraint. */
  rejected: { by: string; detail: string } | null;
}

export interface Plan<C extends FilterConfig = FilterConfig> {
  constraints: PlanConstraints;
  winner: Candidate<C>;
  considered: number;
  rejectedBy: Record<string, number>;
  /** The best few candidates that were rejected, with the reason. */
  nearMisses: Candidate<C>[];
}

export interface FamilyPlanner<C extends FilterConfig = FilterConfig> {
  /**
   * What PlanConstraints.window means and which `plan` option gives it: 'window' (a sliding
   * window: --window) or 'items' (the items a set or multiset filter holds: --items).
   */
  sizeBy: 'window' | 'items';
  /** `plan` options beyond --filter, --window/--items, --fp, --target and --name (e.g. --max-npws). */
  options: readonly OptionSpec[];
  /** Parses the values of `options` into PlanConstraints.extra. */
  extra(values: Record<string, string | undefined>): Record<string, number | undefined>;
  /**
   * The constraints a written config asks the planner for, or null when it gives explicit sizes.
   * Mixing the two is refused through `fail`, naming the field.
   */
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null;
  plan(k: PlanConstraints): Plan<C>;
  /** The config JSON a plan writes (accepted by `generate`); `base` supplies fields to keep. */
  configOf(p: Plan<C>, base?: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** The intent recorded in the derived config (`planned`) and its manifest. */
  record(k: PlanConstraints): Record<string, unknown>;
  /** Figures of a candidate beyond fp, memory, block RAMs and bits per element (slack, NPWS, accesses). */
  figures(c: Candidate<C>): Record<string, unknown>;
  /** A candidate's sizes, for near misses: short key=value text and the same as JSON. */
  shape(c: C): { text: string; json: Record<string, unknown> };
}

// ---- analytics, software, experiments, tables ----------------------------------------------

/** The analytics every family gives (a family's own figures come beside them). */
export interface AnalysisValues {
  filter: string;
  /** False-positive rate at the worst moment the family's analysis defines. */
  fp: number;
  /** Keys guaranteed to be found (null: no window). */
  window: number | null;
  /** Keys older than the window that may still be found. */
  slack: number;
  /** Memory accesses of a query that returns false. */
  accessesFalse: number;
  bitsPerElement: number;
}

/** A config's analytics: JSON values and text lines. */
export interface Analysis {
  values: AnalysisValues;
  /** One line of sizes, printed after the config's name. */
  headline: string;
  lines: string[];
}

export type SoftwareOp = 'insert' | 'query' | 'testAndInsert';

/** The family's software filter, for the hardware-vs-software bench. */
export interface SoftwareFilter {
  /** 'compiled': specialised for the config; 'reference': the reference model. */
  engine: 'compiled' | 'reference';
  /** Keys to time per op (the reference models are slower). */
  keys: number;
  /** A new, empty filter over the key stream: each function does one op on key number i (those it has). */
  fresh(keys: readonly bigint[]): Partial<Record<SoftwareOp, (i: number) => unknown>>;
}

export interface Series {
  name: string;
  kind: 'measured' | 'analytic';
  points: { x: number; y: number }[];
  /** Series of one group share a colour (a measured series and its analytic curve); default from the name. */
  group?: string;
}

export interface ExperimentResult {
  name: string;
  title: string;
  xLabel: string;
  yLabel: string;
  logY?: boolean;
  series: Series[];
  /** Parameters and configs the run used. */
  params: Record<string, unknown>;
  /** The command that reproduces it. */
  command: string;
  /** Checks made by the experiment (e.g. measured within the 99% interval of the analytic value). */
  checks?: { what: string; ok: boolean }[];
}

export interface ExperimentOptions {
  engine: 'model' | 'sim';
  seed: number;
  /** Multiplies probe counts (1 = defaults). */
  scale: number;
  /** Values of the experiment's own options, by camel-case name (defaults applied). */
  params: Record<string, string>;
  progress?: (done: number, total: number) => void;
}

export interface ExperimentDef {
  name: string;
  description: string;
  /** Can run on the RTL in the compiled simulator too (--engine sim). */
  simEngine: boolean;
  /** The experiment's own options, with their defaults. */
  options?: readonly (OptionSpec & { name: string; default: string })[];
  run(o: ExperimentOptions): ExperimentResult;
}

export interface TableDef {
  name: string;
  description: string;
  compute(): ComputedTable;
}

// ---- simulate extensions -------------------------------------------------------------------

/** Hooks a family adds to a `simulate` run (e.g. scoring the decision unit's penalties). */
export interface DriveHooks {
  /** Request fields of a new request (instead of random ones) and a note kept with it. */
  request?(rng: Rng): { fields: Record<string, bigint>; note?: unknown };
  /** A membership answer, with the exact window's truth and the note of its request. */
  scored?(response: ResponseFields, truth: boolean, note: unknown): void;
  /** Figures to add to the result (JSON) and lines to print. */
  report(): Record<string, unknown>;
  lines(): string[];
}

export interface SimulateExtension<C extends FilterConfig = FilterConfig> {
  options: readonly OptionSpec[];
  /** Hooks for the given option values (null: none asked for); throws UsageError when they do not apply. */
  hooks(c: C, values: Record<string, string | undefined>): DriveHooks | null;
}

// ---- lanes ----------------------------------------------------------------------------------

/** Why sharding changes a filter's rate where its fill sets it (LaneSupport.shardedFpWhy's default). */
export const SHARD_FILL_WHY = 'a shard takes Binomial(n, 1/S) of any n inserts into 1/S of the memory';

/**
 * The end of a family's refusal of `shards` for a filter too small to split so far: the most shards
 * it takes (a power of two at most `most`) and `larger` (how to make the filter larger); where even
 * that is fewer than the config's `lanes` (shards >= lanes), fewer lanes instead.
 */
export function shardsHint(most: number, lanes: number, larger: string): string {
  const m = 2 ** Math.floor(Math.log2(Math.max(1, most)));
  return m >= lanes
    ? `use shards <= ${m} or ${larger}`
    : `it takes at most ${m} shard${m === 1 ? '' : 's'}, fewer than its ${lanes} lanes: use lanes <= ${m} or ${larger}`;
}

/**
 * The sizes of a shard of a filter whose inserts decrement P cells of the words they write (the
 * stable and importance-aware filters): cells/S cells per bank in words of the same cellsPerWord
 * — the decrements are word-local, so the word is part of the filter, not only of its layout — so
 * a shard needs two words per bank; with P = 0 (no decrements) the words may narrow to half a
 * shard's bank, down to one cell. With `fail`, a smaller bank is refused naming `shards` (`what`:
 * the filter, `decrements`: what its P does).
 */
export function wordLocalShard(
  c: { cells: number; cellsPerWord: number; P: number },
  o: { lanes: number; shards: number },
  refuse?: { fail: Fail; what: string; decrements: string },
): { cells: number; cellsPerWord: number } {
  const S = o.shards;
  const cells = c.cells / S;
  const least = c.P > 0 ? 2 * c.cellsPerWord : 2;
  if (refuse && (!Number.isInteger(cells) || cells < least))
    // (Below S, so within the shards field's own bound.)
    refuse.fail(
      'shards',
      `${S} shards leave ${c.cells}/${S} cells per bank of ${refuse.what}; a shard needs at least ${least}` +
        (c.P > 0 ? ` (two words of ${c.cellsPerWord} cells: its P = ${c.P} ${refuse.decrements} are word-local)` : '') +
        ` (${shardsHint(c.cells / least, o.lanes, 'a larger cells')})`,
    );
  return { cells, cellsPerWord: c.P > 0 ? c.cellsPerWord : Math.min(c.cellsPerWord, cells / 2) };
}

/**
 * What a family gives to run N request lanes over S shards (src/lanes/): each shard is an
 * instance of the family's own pipeline holding 1/S of the memory, and the dispatcher keeps the
 * aging global, in one of two ways.
 *
 * - Ticks (`period`, `tickOp`; the APBF's generations): the family's aging is lazy and counts
 *   inserts — a step happens before the insert that follows `period` inserts since the last one,
 *   and `tickOp` forces a step and restarts that count. The dispatcher counts every lane's inserts
 *   and sends `tickOp` to every shard before the (period + 1)-th, so a shard never ages on its own.
 * - Global time (`time`; the TBF's T+ and block counter): the dispatcher counts every lane's
 *   inserts G as a time (step ⌊G/block⌋ mod wrap, phase G mod block) and gives each request the
 *   time as of its place in the linear order (see LaneTime); the shard built for lanes never
 *   advances a time of its own. Its background work (the TBF's expiry scan) advances one step in
 *   every shard per `shards` inserts, at the end of the cycle whose inserts reach the next multiple
 *   of `shards`; the op that is last in that cycle's linear order reports it (out<i>_scan), and the
 *   sharded model takes the step there.
 * - Neither (a set filter: the basic, partitioned and blocked Bloom filters): nothing ages; only
 *   the broadcast ops (a clear) reach every shard.
 */
export interface LaneSupport<C extends FilterConfig = FilterConfig> {
  /** Ticks: inserts between aging steps (the APBF's g). */
  period?(c: C): number;
  /** Ticks: the op that forces an aging step and restarts the count. */
  tickOp?: string;
  /**
   * Ticks: a direct shard's output port that is 1 when a tick accepted now would not stall the
   * shard (a register). A shard on lanes must not lower in_ready but for a clear's sweep, so the
   * dispatcher sends a tick only while every shard's port is 1 (and none in the cycles after a
   * tick, until the port has seen it). Absent: a tick never stalls the shard.
   */
  tickReady?: string;
  /**
   * Cycles between two ops a shard takes (its initiation interval; absent: 1). The dispatcher
   * grants a shard at most once in that many cycles, so each request enters its shard's pipeline
   * the cycle after its grant (the lanes' responses come in request order by that).
   */
  interval?(c: C): number;
  /** Global time instead of ticks. */
  time?(c: C): LaneTime;
  /** Ops the dispatcher sends to every shard at once (the tick, a clear). */
  broadcastOps: readonly string[];
  /**
   * The derived config of one shard: 1/`shards` of the memory, with whatever the faster aging
   * needs (`lanes` inserts per cycle: a generation can pass in period/lanes cycles). Errors name
   * the config field through `fail`. The dispatcher takes every response of a shard as it comes
   * (out_ready tied high when the shard has one), so a shard may be built without its response
   * queue (the APBF's `direct`). A shard must take a request the cycle it arrives, but for the
   * cycles after `interval`'s op, a `tickReady` stall, and a clear's sweep, whose in_ready must be
   * low from the third cycle after the clear arrives (src/lanes/rtl.ts, HOLD) to the sweep's end.
   */
  shard(c: C, o: { lanes: number; shards: number; merge?: boolean }, fail: Fail): C;
  /**
   * The false-positive rate of the filter split into `shards` shards, at the same moment as the
   * family's AnalysisValues.fp (window and slack do not change: aging is global).
   */
  shardedFp(c: C, shards: number): number;
  /**
   * Why `shardedFp` differs from the one-lane rate, in a clause `lanes analyze` prints after the
   * two rates. Absent: a shard takes Binomial(n, 1/S) of any n inserts into 1/S of the memory
   * (SHARD_FILL_WHY), which is the reason for every family whose rate is set by its fill.
   */
  shardedFpWhy?(c: C, shards: number): string;
  /**
   * Merging identical keys (a lane config's `merge: true`): heads of one cycle with the same key
   * run as one access of their shard. The family names its op that only queries, its op that only
   * inserts and its op that does both (answering as of before its insert), and so vouches that
   * (1) the insert op's response fields are zero whatever the state, and (2) inserting a key
   * again before the next aging step leaves the memories as one insert does (the dispatcher
   * still counts every insert) — with global time, as the last of the inserts does: the shard
   * (built with `merge` in `shard`'s options) then takes in_last, the inserts from in_tplus to
   * the group's last insert, the time its insert writes, while it answers as of in_before. Only
   * the leader's request fields reach the shard, so a protocol with request fields is refused.
   * Absent: `merge` is refused for the family.
   */
  merge?: { query: string; insert: string; testAndInsert: string };
  /**
   * A family that does not age and whose rate is a steady state's (the GBF, the stable filter):
   * the inserts (distinct or not) after which its state is steady, where `lanes analyze` measures the
   * sharded and the one-lane rate (before any capacity). Absent: measured at the family's capacity.
   */
  steadyInserts?(c: C): number;
  /**
   * The request fields of the inserts `lanes analyze` measures the rates with, drawn as the
   * family's analysis assumes them (the ibf's importances, uniform on 1..MAX). Absent: none.
   */
  insertFields?(c: C, rng: Rng): Record<string, bigint>;
  /**
   * The one-lane preset the lane tests take for the family's throughput checks (default: its first
   * bench preset), when that one does not suit lanes.
   */
  benchPreset?: string;
}

/**
 * Global time on lanes. A shard built for lanes has these input ports beside the request's, held
 * with it: in_tplus and, when block > 1, in_bcnt (log2 block bits) — a time at most a cycle before
 * the request's (the start of the previous cycle); in_before (bitsFor(2·lanes) bits) — the inserts
 * from that time to the request's place, so its time is (in_tplus, in_bcnt) advanced by in_before
 * inserts; in_scan — a background step follows the request, at the time advanced by in_scan_at
 * (same width: to the end of the request's cycle). The dispatcher reads the widths from the
 * shard's ports. A request whose only purpose is the step is a `scanOp` with in_scan set
 * (its response dropped). A shard of a merging filter also has in_last (same width): the inserts
 * to the time its insert writes, its group's last insert's (LaneSupport.merge). The shard's
 * StreamModel reads the same values from the request's fields `tplus`, `bcnt`, `before`, `scan`,
 * `scanAt` (and `last`: the time of the write).
 */
export interface LaneTime {
  /** Inserts per time step (the BTBF's B; 1 for the TBF). */
  block: number;
  /** Time steps before the time wraps to 0 (TΩ + 1). */
  wrap: number;
  /** The op that carries a background step alone (a query; its answer is dropped). */
  scanOp: string;
}

// ---- the family --------------------------------------------------------------------------

/**
 * A family's place on lanes (FilterFamily.lanes): the hooks that run it on N lanes over S shards
 * (`kind: 'sharded'`), or why it has one lane only (`kind: 'one-lane'`), the clause `lanes` and
 * `plan --lanes` print when they refuse it.
 */
export type FamilyLanes<C extends FilterConfig = FilterConfig> =
  ({ kind: 'sharded' } & LaneSupport<C>) | { kind: 'one-lane'; why: string };

/** The lane hooks of a family that has them, else null. */
export function laneSupport<C extends FilterConfig>(f: { lanes: FamilyLanes<C> }): LaneSupport<C> | null {
  return f.lanes.kind === 'sharded' ? f.lanes : null;
}

/**
 * One filter family (docs/adding-a-family.md builds one from scratch). The registry
 * (./index.ts) lists one object per family; the `Filter` façade (./filter.ts) holds a family with
 * one of its derived configs and is what the CLI, the verifier, the bench, the experiments and the
 * conformance tests call.
 */
export interface FilterFamily<C extends FilterConfig = FilterConfig> {
  // -- identity and configs
  /** The folder name under src/families/; `fuzz --families`, experiment owners and errors name it. */
  id: string;
  /** One line naming the filter and its paper: the description of its IP package (src/ip/package.ts). */
  title: string;
  /** The config `filter` values the family accepts; `familyOf` finds the family of a config by them. */
  filters: readonly string[];
  /** The config as written (zod, strict): config resolution validates every config file and preset with it. */
  schema: z.ZodType<Record<string, unknown>>;
  /** Explicit sizes -> the derived config; config resolution calls it, every invalid field through `fail`, naming it. */
  derive(cfg: Readonly<Record<string, unknown>>, fail: Fail): C;
  /** Intent (window or items, fp) -> sizes: `plan`, and config resolution for a config without sizes; absent: sizes only. */
  planner?: FamilyPlanner<C>;
  /** The manifest's parameters (`generate`); the generator writes the same object as the design's metadata. */
  parameters(c: C): Record<string, unknown>;
  /** One line of sizes: `presets` prints it after the preset's name. */
  describe(c: C): string;

  // -- hardware and its reference
  /** The pipeline: `generate` emits it as Verilog, the verifier compiles it into the simulator. */
  build(c: C): Design;
  /** Op codes, request/response fields, latency, queue depth, longest stall: the verifier's driver speaks it. */
  protocol(c: C): StreamProtocol;
  /** A fresh reference model: the verifier checks every response and the memories against it. */
  model(c: C): StreamModel;
  /**
   * The reference model in the state a control-port snapshot holds (src/verify/snapshot.ts):
   * registers by chain name, block RAM words by memory and address, taken with the pipeline
   * drained (no request in flight) and its background work done; the snapshot round trips
   * (src/verify/roundtrip.ts) load it and stream on.
   */
  fromSnapshot(c: C, s: SnapshotView): StreamModel;
  /**
   * What the control port shows (src/transforms/control.ts; `generate --control regs`): its aging
   * events (a 1-bit register pulsing once per event, a register's transition from one value to
   * another, or every rise of a register) and an occupancy estimate (a register, registers
   * concatenated — the first in the top bits — or the port's own count of inserts − removes since
   * the last clear); `{}`: neither. The model's `agingEvents` and `occupancy` give the same numbers.
   */
  control(c: C): {
    events?: string | { reg: string; from: number; to: number } | { reg: string; rises: true };
    occupancy?: string | readonly string[] | { count: 'inserts' };
  };

  // -- verification
  /** Op weights of the random stream of `verify`, the conformance runs and the soaks. */
  verifyMix: Readonly<Record<string, number>>;
  /** Random values of the protocol's request fields for a verification stream; absent: none. */
  requestFields?(c: C, rng: Rng): Record<string, bigint>;
  /**
   * The last `window(c)` inserted keys are always found — the verifier's scoreboard counts false
   * negatives against it; Infinity: every key inserted since the last clear (a set filter); null:
   * no such promise.
   */
  window(c: C): number | null;
  /** Keys the filter is sized for (a set filter's n): the key range of the verification streams when it has no finite window. */
  capacity?(c: C): number;
  /** Keys inserted between window and window + slack inserts ago may still be found (the scoreboard's slack). */
  slack(c: C): number;
  /** What the aging events are called (`simulate` counts them) and a run crossing enough of them (the zero-stall check, the bench); null if none. */
  aging: { name: string; run(c: C): AgingRun } | null;

  // -- analytics, software, fuzzing
  /** The paper's analytics of a config: `analyze` prints them, `plan` and `lanes analyze` compare with them. */
  analyze(c: C): Analysis;
  /** The software filter `bench` times against the hardware. */
  software(c: C): SoftwareFilter;
  /** A random config (as written) over the schema's whole range: `bloomforge fuzz` derives, builds and verifies it. */
  sample(rng: Rng): Record<string, unknown>;

  // -- presets, experiments, extensions
  /** The folder of the preset JSON files: the registry's `presets()` reads it; `make generate` writes their goldens. */
  presetsDir: string;
  /** Presets `bench` and `bench:sim` measure (the registry test checks they exist). */
  benchPresets: readonly string[];
  /** The preset `bloomforge demo` (make demo) shows for this family; absent: none. */
  demoPreset?: string;
  /** The paper's experiments: `experiment <name>` runs them, `report` charts them; absent: none. */
  experiments?: readonly ExperimentDef[];
  /** The paper's tables: `table <name>` computes them; absent: none. */
  tables?: readonly TableDef[];
  /** Options the family adds to `simulate`, and the hooks they install in the run; absent: none. */
  simulate?: SimulateExtension<C>;
  /**
   * Multi-lane, sharded pipelines (src/lanes/, `bloomforge lanes`, lane presets), or why the family
   * has one lane only: the lane config resolution and `plan --lanes` read it.
   */
  lanes: FamilyLanes<C>;
}
