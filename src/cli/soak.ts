/** `bloomforge soak`: long runs of presets (or configs) against the model, with resets (issue 23 item 7). */
import type { Command } from 'commander';
import { presetNames } from '../config/resolve.js';
import { loadFilter } from '../config/load.js';
import { oneLane } from './shape.js';
import { soakSteps, type SoakResult } from '../verify/soak.js';
import { intArg, ratioArg } from './args.js';
import { progress } from './progress.js';
import { machineInfo, machineLine } from '../bench/machine.js';

interface SoakCliOptions {
  ops: number;
  seed: number;
  resetRate: number;
  json?: boolean;
}

function row(r: SoakResult): string[] {
  return r.parts.map((p) =>
    [
      r.name.padEnd(34),
      p.part.padEnd(10),
      String(p.ops).padStart(9),
      String(p.cycles).padStart(10),
      String(p.resets).padStart(6),
      String(p.lostToReset).padStart(6),
      String(p.mismatches).padStart(6),
      String(p.memoryMismatches).padStart(6),
      (p.falseNegatives === null ? '-' : `${p.falseNegatives}/${p.inWindow}`).padStart(14),
      p.seconds.toFixed(1).padStart(7),
      p.finished && p.mismatches === 0 && p.memoryMismatches === 0 && (p.falseNegatives ?? 0) === 0 ? 'ok' : 'FAILED',
    ].join(' '),
  );
}

export function registerSoakCommand(p: Command): void {
  p.command('soak')
    .description(
      'long runs in the compiled simulator against the model (default: every preset), random back-pressure, idle cycles, clears, ticks and mid-stream resets: every response, the memories, and no false negative in the window',
    )
    .argument('[configs...]', 'presets or config files (default: every preset)')
    .option(
      '--ops <n>',
      'operations per config (half membership ops, half the full op mix)',
      intArg('--ops', 2, 1_000_000_000),
      10_000_000,
    )
    .option('--seed <s>', 'seed', intArg('--seed', 0, 0xffffffff), 1)
    .option('--reset-rate <p>', 'probability of a reset pulse per cycle', ratioArg('--reset-rate'), 1 / 50_000)
    .option('--json', 'print JSON')
    .action(async (specs: string[], o: SoakCliOptions) => {
      const filters = (specs.length ? specs : presetNames()).map((s) => oneLane(loadFilter(s), 'soak'));
      const bar = progress('soak', filters.length * o.ops, 'ops', o.json);
      const results: SoakResult[] = [];
      const machine = await machineInfo();
      if (!o.json) {
        console.log(machineLine(machine));
        console.log(
          `${'config'.padEnd(34)} ${'part'.padEnd(10)} ${'ops'.padStart(9)} ${'cycles'.padStart(10)} resets   lost  mism.   mem. ${'FN/in window'.padStart(14)} seconds`,
        );
      }
      try {
        for (const [i, f] of filters.entries()) {
          const it = soakSteps(f, {
            ops: o.ops,
            seed: o.seed,
            resetRate: o.resetRate,
            onProgress: (n) => bar.update(i * o.ops + n, f.name),
          });
          let r: SoakResult;
          for (;;) {
            const step = it.next();
            if (step.done) {
              r = step.value;
              break;
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
          results.push(r);
          if (!o.json) {
            bar.stop();
            for (const line of row(r)) console.log(line);
            for (const part of r.parts) for (const m of part.firstMismatches) console.log(`  ${m}`);
          }
        }
      } finally {
        bar.stop();
      }
      const failed = results.filter((r) => !r.ok).length;
      if (o.json)
        console.log(JSON.stringify({ machine, ops: o.ops, seed: o.seed, resetRate: o.resetRate, results }, null, 2));
      else console.log(`soak: ${results.length} configs, ${results.length - failed} ok, ${failed} failed`);
      if (failed > 0) process.exitCode = 1;
    });
}
