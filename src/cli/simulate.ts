/**
 * `simulate`: a workload through the compiled simulator, measured: test-and-insert per key (or
 * insert and query), ops per cycle, false negatives and positives against the exact window; an
 * N-lane filter's requests on every lane every cycle, against the sharded model.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { FAMILIES } from '../families/index.js';
import type { Filter } from '../families/filter.js';
import type { DriveHooks } from '../families/types.js';
import type { LaneFilter } from '../lanes/filter.js';
import { EXIT, UsageError } from '../util/errors.js';
import { inputFile } from '../util/files.js';
import { driveAsync, keysOf, type DriveResult } from '../verify/stream.js';
import { driveLanes, laneKeyPool, type LaneWorkload } from '../verify/lanes.js';
import { namedWorkload } from '../model/workloads.js';
import { progress } from './progress.js';
import {
  addContributed,
  addVcdOptions,
  contributedValues,
  intArg,
  optionFlag,
  optionKey,
  vcdOptions,
  writeVcd,
  type VcdFlags,
} from './args.js';
import { loadFor, refuseFor, shapeOptions, type CommandWorld, type ShapeFlags } from './shape.js';

interface SimulateOptions extends VcdFlags, ShapeFlags {
  ops?: number;
  seed: number;
  workload: string;
  universe?: number;
  json?: boolean;
}

const OPS = { one: 100_000, lanes: 20_000 };

/** The hooks of the family options given to `simulate`; an option of another family is refused. */
function simulateHooks(f: Filter, values: Record<string, string | undefined>): DriveHooks | null {
  const own = new Set((f.family.simulate?.options ?? []).map((o) => optionKey(o.flags)));
  for (const fam of FAMILIES)
    for (const o of fam.simulate?.options ?? []) {
      const key = optionKey(o.flags);
      if (values[key] !== undefined && !own.has(key))
        throw new UsageError(
          `${optionFlag(o.flags)} applies to ${fam.filters.join(', ')} configs, not to ${f.config.filter}`,
        );
    }
  return f.family.simulate?.hooks(f.config, values) ?? null;
}

export function simulateCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('simulate')
    .description(
      'run a workload through the compiled simulator (test-and-insert per key, or insert and query) and measure it; N lanes: a request on every lane every cycle, against the sharded model',
    )
    .argument('<config>', 'preset name or config JSON file')
    .option(
      '--ops <n>',
      `requests per lane (a one-lane filter has one; default ${OPS.one}, N lanes ${OPS.lanes})`,
      intArg('--ops', 1, 100_000_000),
    )
    .option('--seed <s>', 'workload seed', intArg('--seed', 0, 0xffffffff), 1)
    .option(
      '--workload <w>',
      'uniform | zipf | distinct | sequential | tuple | gray | prefix | FILE (one key per line); N lanes: uniform | zipf | hot (one key on every lane)',
      'uniform',
    )
    .option(
      '--universe <n>',
      'keys of the uniform and zipf workloads (default 4 · window, or 4 · capacity)',
      intArg('--universe', 1, 1 << 30),
    )
    .option('--json', 'print JSON');
  addVcdOptions(shapeOptions(cmd));
  const simKeys = addContributed(
    cmd,
    FAMILIES.flatMap((f) => f.simulate?.options ?? []),
  );
  cmd.action(async (spec: string, o: SimulateOptions & Record<string, unknown>) => {
    const f = loadFor(spec, o, world);
    const values = contributedValues(o, simKeys);
    const familyFlags = FAMILIES.flatMap((x) => x.simulate?.options ?? []).map((x) => [
      optionFlag(x.flags),
      values[optionKey(x.flags)] !== undefined,
    ]);
    refuseFor(f, 'lanes', Object.fromEntries(familyFlags));
    if (f.kind === 'lanes') simulateLanes(f, o);
    else await simulateOne(f, o, simulateHooks(f, values));
  });
}

async function simulateOne(f: Filter, o: SimulateOptions, hooks: DriveHooks | null): Promise<void> {
  const vcd = vcdOptions(o);
  const ops = o.ops ?? OPS.one;
  const workload = namedWorkload(o.workload, f.config.keyBits, o.universe ?? 4 * keysOf(f), (file) =>
    fs.readFileSync(inputFile(file, '--workload'), 'utf8'),
  );
  const bar = progress(`simulate ${f.name}`, ops, 'ops', o.json);
  let r: DriveResult;
  try {
    r = await driveAsync(f, {
      ops,
      seed: o.seed,
      mix: f.membershipMix(),
      workload,
      exactWindow: f.window() !== null,
      record: o.vcd !== undefined,
      hooks: hooks ?? undefined,
      onProgress: (x) => bar.update(x.accepted),
    });
  } finally {
    bar.stop();
  }
  if (o.vcd) writeVcd(r.design, r.trace!.stim, r.trace!.cycles, o.vcd, vcd);
  const out = simulateFigures(f, r, o.workload, hooks);
  if (o.json) console.log(JSON.stringify(out, null, 2));
  else printSimulateOne(f, r, out, o, hooks);
  if (!r.finished || out.falseNegatives > 0 || out.modelMismatches > 0) process.exitCode = EXIT.checkFailed;
}

function simulateFigures(f: Filter, r: DriveResult, workload: string, hooks: DriveHooks | null) {
  const w = r.window;
  const span = r.lastAccept - r.firstAccept + 1;
  const a = f.aging();
  return {
    config: f.name,
    family: f.family.id,
    workload,
    ops: r.ops,
    cycles: r.cycles,
    opsPerCycle: span > 0 ? r.ops / span : 0,
    stallCycles: r.stallCycles,
    finished: r.finished,
    ...(a ? { [a.name]: r.agingEvents } : {}),
    inWindow: w?.inWindow ?? 0,
    falseNegatives: w?.falseNegatives ?? 0,
    slackTested: w?.slackTested ?? 0,
    slackHits: w?.slackHits ?? 0,
    negativesTested: w?.negatives ?? 0,
    falsePositives: w?.falsePositives ?? 0,
    falsePositiveRate: w && w.negatives ? w.falsePositives / w.negatives : 0,
    modelMismatches: r.mismatchCount,
    ...(hooks?.report() ?? {}),
  };
}

function printSimulateOne(
  f: Filter,
  r: DriveResult,
  out: ReturnType<typeof simulateFigures>,
  o: SimulateOptions,
  hooks: DriveHooks | null,
): void {
  const kind = 'testAndInsert' in f.protocol().ops ? 'test-and-insert' : 'insert/query';
  const a = f.aging();
  console.log(
    `${f.name}: ${out.ops} ${kind} ops (${o.workload}) in ${out.cycles} cycles, ${out.opsPerCycle.toFixed(3)} ops/cycle` +
      (a ? `, ${r.agingEvents} ${a.name}` : ''),
  );
  console.log(`  in window ${out.inWindow}, false negatives ${out.falseNegatives}`);
  if (f.slack() > 0) console.log(`  in slack ${out.slackTested}, reported ${out.slackHits}`);
  console.log(
    `  outside window${f.slack() > 0 ? '+slack' : ''} ${out.negativesTested}, false positives ${out.falsePositives} (rate ${out.falsePositiveRate.toFixed(5)})`,
  );
  for (const line of hooks?.lines() ?? []) console.log(line);
  console.log(`  model mismatches ${out.modelMismatches}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
  if (!r.finished) console.log(`simulate: stopped: ${r.stopReason}`);
}

/** The lane workload of a `--workload` name (uniform, zipf, hot). */
function laneWorkload(name: string, lf: LaneFilter): LaneWorkload {
  if (name === 'uniform' || name === 'hot') return name;
  if (name === 'zipf') return { zipf: 1 };
  throw new UsageError(`--workload: an N-lane filter (${lf.name}) takes uniform, zipf or hot, not '${name}'`);
}

function simulateLanes(lf: LaneFilter, o: SimulateOptions): void {
  const vcd = vcdOptions(o);
  const r = driveLanes(lf, {
    opsPerLane: o.ops ?? OPS.lanes,
    seed: o.seed,
    workload: laneWorkload(o.workload, lf),
    keys: o.universe ?? laneKeyPool(lf),
    mix: lf.base.membershipMix(),
    idle: 0,
    backpressure: 0,
    record: o.vcd !== undefined,
  });
  if (o.vcd) writeVcd(lf.design(), r.stim!, r.cycles, o.vcd, vcd);
  const out = {
    config: lf.name,
    family: lf.base.family.id,
    lanes: lf.lanes,
    shards: lf.shards,
    workload: o.workload,
    ops: r.ops,
    cycles: r.cycles,
    opsPerCycle: r.opsPerCycle,
    finished: r.finished,
    agingEvents: r.agingEvents,
    modelMismatches: r.mismatchCount,
    ...(o.vcd ? { vcd: o.vcd } : {}),
  };
  if (o.json) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(
      `${lf.name}: ${lf.lanes} lanes, ${lf.shards} shards: ${out.ops} ops (${o.workload}) in ${out.cycles} cycles, ` +
        `${out.opsPerCycle.toFixed(3)} ops/cycle while busy, ${out.agingEvents} aging steps`,
    );
    console.log(`  model mismatches ${out.modelMismatches}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
    for (const m of r.mismatches.slice(0, 5)) console.log(`  ${m}`);
  }
  if (!r.finished || r.mismatchCount > 0) process.exitCode = EXIT.checkFailed;
}
