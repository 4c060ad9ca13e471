/** CLI commands on filter configs: generate, simulate, verify (APBF and APBBF). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { emitVerilog } from '../emit/verilog.js';
import { manifestOf } from '../emit/manifest.js';
import { buildApbf, LATENCY, OP, RESPONSE_QUEUE } from '../filters/apbf.js';
import { ConfigError, deriveApbf, type ApbfDerived } from '../filters/config.js';
import type { Design } from '../ir/types.js';
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
import { formatComparison } from '../../sim/cosim/compare.js';
import { EXIT, UsageError } from './errors.js';

/** A config is a preset name or a path to a JSON file (resolved and checked). */
export function loadConfig(spec: string): ApbfDerived {
  const preset = presetPath(spec);
  const file = preset ?? inputFile(spec, 'config', ['.json']);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${spec}: not valid JSON: ${(e as Error).message}`);
  }
  return deriveApbf(raw, preset ? `preset ${spec}` : path.basename(file));
}

export function filterManifest(c: ApbfDerived, d: Design): Record<string, unknown> {
  const base = manifestOf(d);
  const memBits = base.memories.reduce((s, m) => s + m.bits, 0);
  return {
    ...base,
    latency: { cycles: LATENCY, note: 'from the accepting cycle of a request to out_valid, with out_ready high' },
    initiationInterval: 1,
    responseQueue: RESPONSE_QUEUE,
    opcodes: OP,
    parameters: {
      filter: c.filter,
      k: c.k,
      l: c.l,
      g: c.generation,
      m: c.segmentBits,
      B: c.blockBits,
      b: c.bitsPerBlock,
      w: c.window,
      s: c.slack,
      keyBits: c.keyBits,
      tagBits: c.tagBits,
      seed: c.seed,
      spares: c.spares,
      wordBits: c.wordBits,
      columnDepth: c.columnDepth,
      target: c.target,
      ...(c.planned ? { planned: c.planned } : {}),
    },
    blockRam: {
      bits: memBits,
      memories: base.memories.length,
      ice40Blocks: base.memories.reduce((s, m) => s + Math.ceil(m.width / 16) * Math.ceil(m.depth / 256), 0),
      note: 'ice40Blocks counts SB_RAM40_4K in 256 x 16 mode; Yosys reports the real count (npx bloomforge synth)',
    },
  };
}

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

function workloadOf(spec: string, c: ApbfDerived): Workload {
  if (spec === 'uniform') return uniformWorkload(c.keyBits, 4 * c.window);
  if (spec === 'zipf') return zipfWorkload(c.keyBits, 4 * c.window);
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
        console.log(
          `${n.padEnd(26)} ${c.filter} k=${c.k} l=${c.l} m=${c.segmentBits} g=${c.generation} w=${c.window} target=${c.target}`,
        );
      }
    });

  p.command('generate')
    .description('write <name>.v and <name>.manifest.json for a filter config')
    .argument('<config>', 'preset name or config JSON file')
    .requiredOption('-o, --out <dir>', 'output directory')
    .action((spec: string, o: { out: string }) => {
      const c = loadConfig(spec);
      const d = buildApbf(c);
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
    .option('--vcd <file>', 'write a VCD of the run')
    .option('--json', 'print JSON')
    .action((spec: string, o: { ops: number; seed: number; workload: string; vcd?: string; json?: boolean }) => {
      const c = loadConfig(spec);
      const r = driveApbf(c, {
        ops: o.ops,
        seed: o.seed,
        mix: { query: 0, insert: 0, testAndInsert: 1 },
        workload: workloadOf(o.workload, c),
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
