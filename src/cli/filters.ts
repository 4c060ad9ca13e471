/** CLI commands on filter configs: generate, simulate, verify (APBF and APBBF). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { emitVerilog } from '../emit/verilog.js';
import { ConfigError } from '../families/apbf/config.js';
import { buildFilter, deriveFilter, filterManifest, isTbf, type FilterDerived } from '../families/legacy.js';
import type { TbfDerived } from '../families/tbf/types.js';
import { presetNames, presetPath } from '../presets/index.js';
import { inputFile, writeAll } from '../util/files.js';
import { traceToVcd } from '../../sim/vcd.js';
import {
  distinctWorkload,
  driveApbf,
  listWorkload,
  uniformWorkload,
  verifyApbf,
  zipfWorkload,
  type Workload,
} from '../../sim/verify/apbf.js';
import { driveTbf, verifyTbf } from '../../sim/verify/tbf.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { EXIT, UsageError } from './errors.js';

/** A config is a preset name or a path to a JSON file (resolved and checked). */
export function loadConfig(spec: string): FilterDerived {
  const preset = presetPath(spec);
  const file = preset ?? inputFile(spec, 'config', ['.json']);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${spec}: not valid JSON: ${(e as Error).message}`);
  }
  return deriveFilter(raw, preset ? `preset ${spec}` : path.basename(file));
}

export { filterManifest };

function ratio(name: string) {
  return (v: string): number => {
    const x = Number(v);
    if (!Number.isFinite(x) || x < 0 || x >= 1) throw new InvalidArgumentError(`${name} must be a number in [0, 1)`);
    return x;
  };
}

function count(name: string, min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(v);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be in ${min}..${max}`);
    return n;
  };
}

function workloadOf(spec: string, c: FilterDerived, universe = 4 * c.window): Workload {
  if (spec === 'uniform') return uniformWorkload(c.keyBits, universe);
  if (spec === 'zipf') return zipfWorkload(c.keyBits, universe);
  if (spec === 'distinct') return distinctWorkload(c.keyBits);
  const file = inputFile(spec, '--workload');
  const keys: bigint[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return;
      if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(t))
        throw new UsageError(`--workload ${spec}:${i + 1}: '${t}' is not a key (decimal or 0x hex)`);
      const k = BigInt(t);
      if (k >> BigInt(c.keyBits) !== 0n)
        throw new UsageError(`--workload ${spec}:${i + 1}: key wider than keyBits = ${c.keyBits}`);
      keys.push(k);
    });
  if (keys.length === 0) throw new UsageError(`--workload ${spec}: no keys`);
  return listWorkload(keys);
}

export function registerFilterCommands(p: Command): void {
  p.command('presets')
    .description('list the preset filter configs')
    .action(() => {
      for (const n of presetNames()) {
        const c = loadConfig(n);
        const shape = isTbf(c)
          ? `k=${c.k} timers=${c.timersPerBank}x${c.timerBits}b B=${c.blockSize} P=${c.padding}${c.decision ? ' +decision' : ''}`
          : `k=${c.k} l=${c.l} m=${c.segmentBits} g=${c.generation}`;
        console.log(`${n.padEnd(26)} ${c.filter} ${shape} w=${c.window} target=${c.target}`);
      }
    });

  p.command('generate')
    .description('write <name>.v and <name>.manifest.json for a filter config')
    .argument('<config>', 'preset name or config JSON file')
    .requiredOption('-o, --out <dir>', 'output directory')
    .action((spec: string, o: { out: string }) => {
      const c = loadConfig(spec);
      const d = buildFilter(c);
      const files = writeAll(o.out, {
        [`${c.name}.v`]: emitVerilog(d),
        [`${c.name}.manifest.json`]: JSON.stringify(filterManifest(c, d), null, 2) + '\n',
      });
      for (const f of files) console.log(`wrote ${f}`);
    });

  p.command('simulate')
    .description('run a workload through the compiled simulator (test-and-insert per op) and measure it')
    .argument('<config>', 'preset name or config JSON file')
    .option('--ops <n>', 'operations', count('--ops', 1, 100_000_000), 100_000)
    .option('--seed <s>', 'workload seed', count('--seed', 0, 0xffffffff), 1)
    .option('--workload <w>', 'uniform | zipf | distinct | FILE (one key per line)', 'uniform')
    .option(
      '--universe <n>',
      'keys of the uniform and zipf workloads (default 4 · window)',
      count('--universe', 1, 1 << 30),
    )
    .option('--vcd <file>', 'write a VCD of the run')
    .option('--penalties <p>', "TBF/BTBF with a decision unit: 'random' ($FP, $FN uniform in [1, 10) per query)")
    .option('--json', 'print JSON')
    .action((spec: string, o: SimulateOptions) => {
      const c = loadConfig(spec);
      if (o.penalties !== undefined && o.penalties !== 'random')
        throw new UsageError(`--penalties: '${o.penalties}' is not 'random'`);
      if (isTbf(c)) {
        simulateTbf(c, o);
        return;
      }
      if (o.penalties) throw new UsageError('--penalties needs a TBF/BTBF config with a decision unit');
      const r = driveApbf(c, {
        ops: o.ops,
        seed: o.seed,
        mix: { query: 0, insert: 0, testAndInsert: 1 },
        workload: workloadOf(o.workload, c, o.universe),
        exactWindow: true,
        record: o.vcd !== undefined,
      });
      if (o.vcd) traceToVcd(r.design, r.stimulus, o.vcd);
      const out = {
        config: c.name,
        workload: o.workload,
        ops: r.ops,
        cycles: r.cycles,
        opsPerCycle: r.ops / r.cycles,
        stallCycles: r.stallCycles,
        hits: r.positives - r.falseNegatives + r.slackHits + r.falsePositives,
        inWindow: r.positives,
        falseNegatives: r.falseNegatives,
        slackTested: r.slackTested,
        slackHits: r.slackHits,
        negativesTested: r.negativesTested,
        falsePositives: r.falsePositives,
        falsePositiveRate: r.negativesTested ? r.falsePositives / r.negativesTested : 0,
        modelMismatches: r.modelMismatches.length,
      };
      if (o.json) console.log(JSON.stringify(out, null, 2));
      else {
        console.log(
          `${c.name}: ${out.ops} test-and-insert ops (${o.workload}) in ${out.cycles} cycles, ${out.opsPerCycle.toFixed(3)} ops/cycle`,
        );
        console.log(`  in window ${out.inWindow}, false negatives ${out.falseNegatives}`);
        console.log(`  in slack ${out.slackTested}, reported ${out.slackHits}`);
        console.log(
          `  outside window+slack ${out.negativesTested}, false positives ${out.falsePositives} (rate ${out.falsePositiveRate.toFixed(5)})`,
        );
        console.log(`  model mismatches ${out.modelMismatches}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
      }
      if (out.falseNegatives > 0 || out.modelMismatches > 0) process.exitCode = EXIT.checkFailed;
    });

  p.command('verify')
    .description('model vs TS simulator vs Verilator (and Icarus) on one random op stream; memories vs model')
    .argument('<config>', 'preset name or config JSON file')
    .option('--ops <n>', 'operations', count('--ops', 1, 10_000_000), 100_000)
    .option('--seed <s>', 'stream seed', count('--seed', 0, 0xffffffff), 1)
    .option('--backpressure <p>', 'probability that out_ready is low in a cycle', ratio('--backpressure'), 0)
    .option('--icarus', 'also compare against Icarus Verilog')
    .action(async (spec: string, o: { ops: number; seed: number; backpressure: number; icarus?: boolean }) => {
      const c = loadConfig(spec);
      if (isTbf(c)) {
        const r = await verifyTbf(c, {
          ops: o.ops,
          seed: o.seed,
          backpressure: o.backpressure,
          idle: 0.05,
          mix: { query: 4, insert: 4, testAndInsert: 2, clear: 0.0002 },
          icarus: !!o.icarus,
        });
        const d = r.drive;
        console.log(
          `model vs simulator: ${d.responses} responses (hit, λ, c${c.decision ? ', decision' : ''}), ${d.modelMismatches.length} mismatches`,
        );
        for (const x of d.modelMismatches.slice(0, 5))
          if (x) console.log(`  op ${x.op} (${x.kind}): expected ${x.expected}, got ${x.got}`);
        console.log(`timers vs model: ${r.memory.timers} timers, ${r.memory.mismatches.length} mismatches`);
        for (const x of r.memory.mismatches.slice(0, 5)) console.log(`  ${x}`);
        for (const cmp of r.rtl) console.log(formatComparison(cmp, d.design).split('\n').slice(0, 6).join('\n'));
        console.log(`T+ wraps ${d.wraps}, stall cycles ${d.stallCycles}`);
        console.log(`verify: ${d.ops} ops, ${d.cycles} cycles, ${r.mismatches} mismatches`);
        if (r.mismatches > 0) process.exitCode = EXIT.checkFailed;
        return;
      }
      const r = await verifyApbf(c, {
        ops: o.ops,
        seed: o.seed,
        backpressure: o.backpressure,
        idle: 0.05,
        mix: { query: 4, insert: 4, testAndInsert: 2, tick: 0.004, clear: 0.0002 },
        icarus: !!o.icarus,
      });
      const d = r.drive;
      console.log(`model vs simulator: ${d.responses} responses, ${d.modelMismatches.length} mismatches`);
      for (const x of d.modelMismatches.slice(0, 5))
        if (x) console.log(`  op ${x.op} (${x.kind}): expected ${x.expected}, got ${x.got}`);
      console.log(`memories vs model: ${r.memory.words} words, ${r.memory.mismatches.length} mismatches`);
      for (const x of r.memory.mismatches.slice(0, 5)) console.log(`  ${x}`);
      for (const cmp of r.rtl) console.log(formatComparison(cmp, d.design).split('\n').slice(0, 6).join('\n'));
      console.log(`shifts ${d.model.shifts}, stall cycles ${d.stallCycles}`);
      console.log(`verify: ${d.ops} ops, ${d.cycles} cycles, ${r.mismatches} mismatches`);
      if (r.mismatches > 0) process.exitCode = EXIT.checkFailed;
    });
}

interface SimulateOptions {
  ops: number;
  seed: number;
  workload: string;
  universe?: number;
  vcd?: string;
  penalties?: string;
  json?: boolean;
}

function simulateTbf(c: TbfDerived, o: SimulateOptions): void {
  if (o.penalties && !c.decision) throw new UsageError(`--penalties: ${c.name} has no decision unit`);
  const r = driveTbf(c, {
    ops: o.ops,
    seed: o.seed,
    mix: { query: 0, insert: 0, testAndInsert: 1 },
    workload: workloadOf(o.workload, c, o.universe),
    exactWindow: true,
    penalties: o.penalties ? 'random' : undefined,
    record: o.vcd !== undefined,
  });
  if (o.vcd) traceToVcd(r.design, r.stimulus, o.vcd);
  const cycles = r.lastAccept - r.firstAccept + 1;
  const out = {
    config: c.name,
    workload: o.workload,
    ops: r.ops,
    cycles: r.cycles,
    opsPerCycle: r.ops / cycles,
    stallCycles: r.stallCycles,
    wraps: r.wraps,
    inWindow: r.inWindow,
    falseNegatives: r.falseNegatives,
    outside: r.outside,
    falsePositives: r.falsePositives,
    falsePositiveRate: r.outside ? r.falsePositives / r.outside : 0,
    modelMismatches: r.modelMismatches.length,
    ...(o.penalties
      ? {
          penalties: {
            scored: r.scored,
            standard: r.penaltyStandard,
            inferential: r.penaltyInferential,
            ratio: r.penaltyStandard > 0 ? r.penaltyInferential / r.penaltyStandard : null,
          },
        }
      : {}),
  };
  if (o.json) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(
      `${c.name}: ${out.ops} test-and-insert ops (${o.workload}), ${out.opsPerCycle.toFixed(3)} ops/cycle, ${out.wraps} T+ wraps`,
    );
    console.log(`  in window ${out.inWindow}, false negatives ${out.falseNegatives}`);
    console.log(
      `  outside the window ${out.outside}, false positives ${out.falsePositives} (rate ${out.falsePositiveRate.toFixed(5)})`,
    );
    if (out.penalties)
      console.log(
        `  total penalty over ${out.penalties.scored} queries: standard ${out.penalties.standard.toFixed(1)}, ` +
          `inferential ${out.penalties.inferential.toFixed(1)} (ratio ${out.penalties.ratio?.toFixed(3) ?? 'n/a'})`,
      );
    console.log(`  model mismatches ${out.modelMismatches}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
  }
  if (out.falseNegatives > 0 || out.modelMismatches > 0) process.exitCode = EXIT.checkFailed;
}
