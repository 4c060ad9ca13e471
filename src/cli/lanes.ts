/**
 * `bloomforge lanes …`: the N-lane world's names for the ordinary commands. `lanes generate`,
 * `verify`, `analyze`, `bench`, `synth` and `simulate` are the top-level commands (same code),
 * except that every config resolves as an N-lane one (one lane when it names none); `lanes` and
 * `shards` come from the config or from --lanes/--shards (which win). `lanes throughput` is the
 * lane-only measurement: ops per cycle beside the grant rule's cycle model.
 */
import type { Command } from 'commander';
import { driveLanes, laneKeySource, type LaneWorkload } from '../verify/lanes.js';
import { grantModel } from '../lanes/grantModel.js';
import type { LaneFilter } from '../lanes/filter.js';
import { intArg } from './args.js';
import { generateCommand } from './filters.js';
import { verifyCommand } from './verify.js';
import { simulateCommand } from './simulate.js';
import { analyzeCommand } from './analysis.js';
import { benchCommand, synthCommand } from './hw.js';
import { loadFor, LANES, shapeOptions, type ShapeFlags } from './shape.js';

interface ThroughputOptions extends ShapeFlags {
  ops: number;
  seed: number;
  keys: number;
  json?: boolean;
}

const LOADS: [string, LaneWorkload][] = [
  ['uniform', 'uniform'],
  ['zipf 0.8', { zipf: 0.8 }],
  ['zipf 1.0', { zipf: 1.0 }],
  ['zipf 1.2', { zipf: 1.2 }],
  ['one hot key', 'hot'],
];

/** One workload's row: the RTL's ops/cycle and the grant model's, without and with merging. */
function throughputRow(lf: LaneFilter, name: string, workload: LaneWorkload, o: ThroughputOptions) {
  const r = driveLanes(lf, {
    opsPerLane: o.ops,
    seed: o.seed,
    workload,
    keys: o.keys,
    mix: { query: 1, insert: 1 },
    throughputOnly: true,
  });
  const model = lf.model();
  const grant = (merge: boolean): number =>
    grantModel({
      lanes: lf.lanes,
      shardOf: (k) => model.shardOf(k),
      workload: laneKeySource(workload, o.keys, lf.base.config.keyBits),
      cycles: o.ops,
      merge,
      seed: o.seed,
    });
  return {
    workload: name,
    opsPerCycle: r.opsPerCycle,
    perLane: r.opsPerCycle / lf.lanes,
    model: grant(false),
    modelMerged: grant(true),
  };
}

function throughputCommand(lanes: Command): void {
  shapeOptions(
    lanes
      .command('throughput')
      .description(
        'ops per cycle with every lane offered a request every cycle: uniform keys, Zipf 0.8 / 1.0 / 1.2, one hot key; beside the RTL, the grant rule as a cycle model without and with merging identical keys (src/lanes/grantModel.ts)',
      )
      .argument('<config>', 'preset name or config JSON file')
      .option('--ops <n>', 'requests per lane', intArg('--ops', 100, 10_000_000), 20000)
      .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1)
      .option('--keys <n>', 'distinct keys of the uniform and Zipf streams', intArg('--keys', 1, 1 << 30), 1 << 16)
      .option('--json', 'print JSON'),
  ).action((spec: string, o: ThroughputOptions) => {
    const lf = loadFor(spec, o, LANES) as LaneFilter;
    const rows = LOADS.map(([name, workload]) => throughputRow(lf, name, workload, o));
    if (o.json) {
      console.log(
        JSON.stringify({ config: lf.name, lanes: lf.lanes, shards: lf.shards, merge: lf.merge, rows }, null, 2),
      );
      return;
    }
    console.log(
      `${lf.name}: ${lf.lanes} lanes, ${lf.shards} shards, ${o.ops} requests per lane, query:insert 1:1` +
        (lf.merge ? ', the RTL merging identical keys' : ''),
    );
    console.log(`  ${'keys'.padEnd(12)} RTL ops/cycle            grant model   with merging identical keys`);
    for (const r of rows)
      console.log(
        `  ${r.workload.padEnd(12)} ${r.opsPerCycle.toFixed(3)} (${(100 * r.perLane).toFixed(1).padStart(5)} % of ${lf.lanes})`.padEnd(
          39,
        ) +
          `${r.model.toFixed(3)}         ${r.modelMerged.toFixed(3)} (${r.modelMerged >= r.model ? '+' : ''}${(100 * (r.modelMerged / r.model - 1)).toFixed(1)} %)`,
      );
  });
}

export function registerLaneCommands(p: Command): void {
  const lanes = p
    .command('lanes')
    .description(
      'N-lane filters (requests on N lanes per cycle over S shards of the memory): the ordinary commands, every config an N-lane one, and throughput',
    );
  generateCommand(lanes, LANES);
  verifyCommand(lanes, LANES);
  analyzeCommand(lanes, LANES);
  benchCommand(lanes, LANES);
  synthCommand(lanes, LANES);
  simulateCommand(lanes, LANES);
  throughputCommand(lanes);
}
