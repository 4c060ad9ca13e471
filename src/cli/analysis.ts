/**
 * CLI: analyze (one config's analytics, one-lane or N-lane), table (the papers' tables, computed),
 * plan (intent -> sizes, on one lane or N).
 */
import type { Command } from 'commander';
import { formatTable } from '../analysis/table.js';
import { familyOf, FAMILIES, filterNames } from '../families/index.js';
import { UsageError } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import {
  addContributed,
  choiceArg,
  contributedValues,
  intArg,
  numberChoiceArg,
  optionFlag,
  optionKey,
  probabilityArg,
  targetArg,
} from './args.js';
import { loadFor, refuseFor, shapeOptions, TOP, type CommandWorld, type ShapeFlags } from './shape.js';
import { measureShardedFp } from '../lanes/analysis.js';
import { LANE_COUNTS, type LaneFilter } from '../lanes/filter.js';
import { DEFAULT_TARGET, type Target } from '../device/index.js';
import { planLanes, type LanePlan } from '../config/lanePlan.js';
import { laneFilterNames } from '../config/lanes.js';
import type { FamilyPlanner, PlanConstraints } from '../families/types.js';

interface AnalyzeOptions extends ShapeFlags {
  queries?: number;
  seed?: number;
  moment?: 'shift' | 'cycle';
  json?: boolean;
}

export function analyzeCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('analyze')
    .description(
      "a config's false-positive rate, accesses, window, slack and bits per element (and its family's figures); N lanes: the sharded filter's analysis (fp of S shards beside one lane's; window and slack, which sharding keeps), the shard's sizes, and the false-positive rate measured on the sharded model beside the one-lane model on the same stream",
    )
    .argument('<config>', 'preset name or config JSON file')
    .option(
      '--queries <n>',
      'N lanes: never-inserted keys queried on each model (default 200000)',
      intArg('--queries', 1000, 100_000_000),
    )
    .option('--seed <s>', 'N lanes: stream seed of the measurement (default 1)', intArg('--seed', 0, 0xffffffff))
    .option(
      '--moment <m>',
      "N lanes: when the keys are queried: 'shift' (100 just before each aging step) or 'cycle' (one after every insert); default: the analysis's moment, 'shift' for a family aging by ticks, 'cycle' for one with global time (its rate is a mean over the phase of a time step); a filter that does not age is measured at its capacity (n keys inserted, then the queries; one without a capacity after the inserts that bring it to its steady state) and takes no --moment",
      choiceArg('--moment', ['shift', 'cycle'] as const),
    )
    .option('--json', 'print JSON');
  shapeOptions(cmd).action((spec: string, o: AnalyzeOptions) => {
    const f = loadFor(spec, o, world);
    refuseFor(f, 'one', {
      '--queries': o.queries !== undefined,
      '--seed': o.seed !== undefined,
      '--moment': !!o.moment,
    });
    if (f.kind === 'lanes') return analyzeLanes(spec, f, o);
    const a = f.analyze();
    if (o.json) console.log(JSON.stringify(a.values, null, 2));
    else {
      console.log(`${spec}: ${a.headline}`);
      for (const line of a.lines) console.log(`  ${line}`);
    }
  });
}

function analyzeLanes(spec: string, lf: LaneFilter, o: AnalyzeOptions): void {
  const a = lf.analyze();
  if (o.moment && lf.aging() === 'none')
    throw new UsageError(
      `analyze: --moment: filter '${lf.base.config.filter}' does not age; it is measured at its capacity (or steady state)`,
    );
  const moment = o.moment ?? (lf.ticks() ? 'shift' : 'cycle');
  const fp = measureShardedFp(lf, { queries: o.queries ?? 200_000, seed: o.seed ?? 1, moment });
  const shard = lf.shard.parameters();
  if (o.json) {
    const values = { analysis: a.values, lanes: lf.lanes, shards: lf.shards, latency: lf.latency(), shard, fp };
    console.log(JSON.stringify(values, null, 2));
    return;
  }
  console.log(`${spec}: ${a.headline}, ${lf.lanes} lanes over ${lf.shards} shards`);
  for (const line of a.lines) console.log(`  ${line}`);
  const spares = shard.spares !== undefined ? `, spares ${String(shard.spares)}` : '';
  console.log(`  shard: ${lf.shard.describe()}${spares}; latency ${lf.latency()} cycles`);
  const pct = (x: number): string => `${(100 * x).toFixed(4)} %`;
  const when =
    lf.aging() === 'none'
      ? `after ${fp.inserts} ${lf.measuresSteadyState() ? 'inserted keys (its steady state)' : 'distinct inserted keys (the capacity)'}`
      : `${moment === 'shift' ? `just before aging steps (every ${lf.period()} inserts)` : 'one after each insert'}, ${fp.inserts} inserts`;
  const spread = lf.ticks()
    ? `; a shard's share of the ${lf.period()} inserts between aging steps spreads by sqrt(S/${lf.period()}) = ${fp.loadSpread.toFixed(3)}`
    : '';
  console.log(
    `  measured fp (${fp.queries} never-inserted keys ${when}): sharded ${pct(fp.sharded)} ± ${pct(fp.halfWidth.sharded)}, one lane ${pct(fp.single)} ± ${pct(fp.halfWidth.single)} (99 %)${spread}`,
  );
}

function tableCommand(p: Command): void {
  const tables = FAMILIES.flatMap((f) => f.tables ?? []);
  p.command('table')
    .description(
      `reproduce a paper's table from the analytics: ${tables.map((t) => `${t.name} (${t.description})`).join('; ')}`,
    )
    .argument('<which>', tables.map((t) => t.name).join(' | '))
    .option('--json', 'print JSON')
    .action((which: string, o: { json?: boolean }) => {
      const t = tables.find((x) => x.name === which);
      if (!t) throw new UsageError(`table: '${which}' is not one of ${tables.map((x) => x.name).join(', ')}`);
      const computed = t.compute();
      console.log(o.json ? JSON.stringify(computed, null, 2) : formatTable(computed));
    });
}

export function registerAnalysisCommands(p: Command): void {
  analyzeCommand(p, TOP);
  tableCommand(p);
}

interface PlanCliOptions {
  filter: string;
  window?: number;
  items?: number;
  fp: number;
  target?: Target;
  name: string;
  json?: boolean;
  out?: string;
  lanes?: number;
  shards?: number;
}

export function registerPlanCommand(p: Command): void {
  const planners = FAMILIES.filter((f) => f.planner);
  const cmd = p
    .command('plan')
    .description(
      `choose the sizes of a ${planners.flatMap((f) => f.filters).join('/')} meeting a window (or a number of items) and fp with the least memory (or block RAMs on --target)`,
    )
    .requiredOption('--filter <f>', `${planners.flatMap((f) => f.filters).join(' | ')} (required)`)
    .option('--window <w>', 'sliding window (keys), for the windowed filters', intArg('--window', 1, 1 << 30))
    .option('--items <n>', 'items to hold, for the set and multiset filters', intArg('--items', 1, 1 << 30))
    .requiredOption('--fp <p>', 'false-positive rate at the worst moment (required)', probabilityArg('--fp'))
    .option(
      '--target <t>',
      'ice40-hx8k | ice40-up5k | ecp5 | xilinx: the part the plan must fit',
      targetArg,
      DEFAULT_TARGET,
    )
    .option('--name <n>', 'config name', 'planned')
    .option(
      '--lanes <n>',
      'plan an N-lane filter (1, 2, 4, 8): the sharded filter meets --fp and fits --target',
      numberChoiceArg('--lanes', LANE_COUNTS),
    )
    .option(
      '--shards <s>',
      'with --lanes: shards (default: the most up to 8·lanes that fit)',
      intArg('--shards', 1, 1 << 16),
    )
    .option('--json', 'print JSON')
    .option('-o, --out <dir>', 'write the chosen config into DIR/<name>.json (for generate)');
  const keys = addContributed(
    cmd,
    planners.flatMap((f) => f.planner!.options),
  );
  cmd.action((o: PlanCliOptions & Record<string, unknown>) => planAction(o, keys, planners));
}

/** The plan of `o`'s constraints (`keys`: the planners' contributed options): one lane or N. */
function planAction(
  o: PlanCliOptions & Record<string, unknown>,
  keys: string[],
  planners: readonly (typeof FAMILIES)[number][],
): void {
  const family = familyOf(o.filter);
  if (!family) throw new UsageError(`plan: --filter ${o.filter}: must be one of ${filterNames().join(', ')}`);
  const planner = family.planner;
  if (!planner) throw new UsageError(`plan: ${o.filter} has no planner`);
  const other = planner.sizeBy === 'window' ? 'items' : 'window';
  const size = o[planner.sizeBy];
  if (size === undefined) throw new UsageError(`plan: --${planner.sizeBy} is required for ${o.filter}`);
  if (o[other] !== undefined)
    throw new UsageError(`plan: ${o.filter} is planned by --${planner.sizeBy}, not --${other}`);
  const values = contributedValues(o, keys);
  const own = new Set(planner.options.map((x) => optionKey(x.flags)));
  for (const f of planners)
    for (const x of f.planner!.options)
      if (values[optionKey(x.flags)] !== undefined && !own.has(optionKey(x.flags)))
        throw new UsageError(
          `plan: ${optionFlag(x.flags)} is a constraint of ${f.filters.join(', ')}, not of ${o.filter}`,
        );
  const constraints = {
    filter: o.filter,
    window: size,
    fp: o.fp,
    target: o.target,
    name: o.name,
    extra: planner.extra(values),
  };
  if (o.shards !== undefined && o.lanes === undefined) throw new UsageError('plan: --shards needs --lanes');
  if (o.lanes !== undefined) {
    if (family.lanes.kind === 'one-lane') {
      const supported = laneFilterNames();
      throw new UsageError(
        `plan: --lanes: ${o.filter} has one lane only: ${family.lanes.why} (lanes: ${supported.join(', ')})`,
      );
    }
    printLanePlan(planLanes(planner, constraints, { lanes: o.lanes, shards: o.shards }), o);
    return;
  }
  printOnePlan(planner, constraints, o);
}

/** The one-lane plan: the winner, its figures, the near misses; written with -o. */
function printOnePlan(planner: FamilyPlanner, constraints: PlanConstraints, o: PlanCliOptions): void {
  const pl = planner.plan(constraints);
  const w = pl.winner;
  const cfg = planner.configOf(pl);
  const figures = planner.figures(w);
  const summary = {
    winner: cfg,
    fp: w.fp,
    ...figures,
    bitsPerElement: w.bitsPerElement,
    memoryBits: w.memoryBits,
    blockRams: w.blockRams,
    considered: pl.considered,
    rejectedBy: pl.rejectedBy,
    nearMisses: pl.nearMisses.map((c) => ({ ...planner.shape(c.config).json, reason: c.rejected!.detail })),
  };
  const written = o.out
    ? writeAll(o.out, { [`${o.name}.json`]: JSON.stringify(cfg, null, 2) + '\n' }, '--out')[0]
    : null;
  if (o.json) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  const fmt = (v: unknown): string =>
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v);
  console.log(`plan: ${o.filter} ${planner.shape(w.config).text}`);
  console.log(
    `  fp ${w.fp.toExponential(3)} (<= ${o.fp}), ` +
      Object.entries(figures)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => `${k} ${fmt(v)}`)
        .join(', '),
  );
  console.log(
    `  ${w.bitsPerElement.toFixed(2)} bits/element, ${w.memoryBits} bits of memory, ${w.blockRams} block RAMs on ${o.target}`,
  );
  console.log(
    `  ${pl.considered} candidates; rejected: ${
      Object.entries(pl.rejectedBy)
        .map(([r, n]) => `${n} by ${r}`)
        .join(', ') || 'none'
    }`,
  );
  for (const c of pl.nearMisses) console.log(`    e.g. ${planner.shape(c.config).text}: ${c.rejected!.detail}`);
  if (written) console.log(`  wrote ${written}`);
}

function printLanePlan(lp: LanePlan, o: PlanCliOptions): void {
  const lf = lp.lane;
  const a = lf.analyze().values;
  const written = o.out
    ? writeAll(o.out, { [`${o.name}.json`]: JSON.stringify(lp.config, null, 2) + '\n' }, '--out')[0]
    : null;
  const summary = {
    winner: lp.config,
    lanes: lf.lanes,
    shards: lf.shards,
    fp: lp.fp,
    fpOneLane: lp.fpOneLane,
    askedFp: lp.askedFp,
    window: a.window,
    slack: a.slack,
    blockRams: lp.blockRams,
    shard: lf.shard.describe(),
    latency: lf.latency(),
    passed: lp.passed,
  };
  if (o.json) {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  console.log(`plan: ${o.filter} ${lf.base.describe()}, ${lf.lanes} lanes over ${lf.shards} shards`);
  console.log(
    `  fp of the sharded filter ${lp.fp.toExponential(3)} (<= ${o.fp}; one lane ${lp.fpOneLane.toExponential(3)}; ` +
      `the family planner was asked for ${lp.askedFp.toExponential(3)}), ` +
      (Number.isFinite(a.window)
        ? `window ${String(a.window)}, slack ${a.slack}`
        : `no window (nothing ages), capacity ${String(lf.base.capacity())} keys`),
  );
  console.log(
    `  shard: ${lf.shard.describe()}; ${lp.blockRams} block RAMs on ${String(lf.base.config.target)} (the estimate synth refuses oversize designs by; Yosys may put small memories in distributed RAM); latency ${lf.latency()} cycles`,
  );
  for (const p of lp.passed) console.log(`  not ${p.shards} shards: ${p.reason}`);
  console.log(`  ops/cycle: bloomforge lanes throughput <config> (README "Multi-lane filters")`);
  if (written) console.log(`  wrote ${written}`);
}
