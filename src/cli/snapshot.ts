/**
 * `bloomforge snapshot`: the control port's round trip on a config (src/verify/roundtrip.ts) —
 * a random request stream, a snapshot taken through the port at cycle --at, restored into a fresh
 * simulator, both going on beside a run that never stopped — with the snapshot written as JSON and,
 * with --verilator, the take and restore cycles replayed in Verilator port by port.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { cosimulate } from '../../sim/cosim/index.js';
import { loadFilter } from '../config/load.js';
import { oneLane } from './shape.js';
import { controlMap } from '../verify/snapshot.js';
import { roundTrip } from '../verify/roundtrip.js';
import { UsageError } from '../util/errors.js';
import { outputFile, writeFileAtomic } from '../util/files.js';
import { intArg } from './args.js';

interface SnapshotOptions {
  cycles: number;
  at?: number;
  seed: number;
  out?: string;
  verilator?: boolean;
  json?: boolean;
}

export function registerSnapshotCommand(p: Command): void {
  p.command('snapshot')
    .description(
      'control port round trip: run a random stream, snapshot the whole state through the port at --at, restore it into a fresh simulator, go on; every output, counter and block RAM word against a run that never stopped',
    )
    .argument('<config>', 'preset name or config JSON file')
    .option('--cycles <n>', 'cycles of the request stream', intArg('--cycles', 2, 10_000_000), 20_000)
    .option('--at <t>', 'cycle of the snapshot (default: half of --cycles)', intArg('--at', 0, 10_000_000))
    .option('--seed <s>', 'stream seed', intArg('--seed', 0, 0xffffffff), 1)
    .option('-o, --out <file>', 'write the snapshot as JSON')
    .option('--verilator', 'replay the take and restore cycles in Verilator, every port every cycle')
    .option('--json', 'print JSON')
    .action(async (spec: string, o: SnapshotOptions) => {
      const at = o.at ?? Math.floor(o.cycles / 2);
      if (at >= o.cycles) throw new UsageError(`--at (${at}) must be below --cycles (${o.cycles})`);
      const out = o.out === undefined ? undefined : outputFile(o.out, '--out');
      const f = oneLane(loadFilter(spec), 'snapshot (the control port)');
      const d = f.controlDesign();
      const map = controlMap(d);
      const r = roundTrip(f, { cycles: o.cycles, at, seed: o.seed });
      let verilator: number | null = null;
      if (o.verilator) {
        verilator = 0;
        for (const stim of [r.stimulusA, r.stimulusB])
          verilator += (await cosimulate(d, stim, { interpreter: false, verilator: true })).mismatches;
      }
      if (out)
        writeFileAtomic(out, '--out', (tmp) => fs.writeFileSync(tmp, JSON.stringify(r.snapshot, null, 1) + '\n'));
      const summary = {
        design: r.design,
        cycles: o.cycles,
        at,
        seed: o.seed,
        chainRegisters: map.chain.length,
        chainWords: map.words,
        memoryWords: r.memoryWords,
        takeCycles: r.takeCycles,
        restoreCycles: r.restoreCycles,
        requests: Number(r.requests),
        mismatches: r.mismatchCount,
        memoryMismatches: r.memoryMismatches,
        verilatorMismatches: verilator,
      };
      if (o.json)
        console.log(
          JSON.stringify(
            {
              ...summary,
              firstMismatches: r.mismatches.map((m) => ({ ...m, got: String(m.got), want: String(m.want) })),
            },
            null,
            2,
          ),
        );
      else {
        console.log(
          `${r.design}: ${map.chain.length} registers in ${map.words} chain words, ${r.memoryWords} block RAM words; take ${r.takeCycles} cycles, restore ${r.restoreCycles}`,
        );
        for (const m of r.mismatches)
          console.log(`  cycle ${m.cycle} ${m.engine} ${m.port}: ${m.got} (a run that never stopped: ${m.want})`);
        if (verilator !== null)
          console.log(`verilator = ts-compiled on every port of the take and restore runs: ${verilator} mismatches`);
        if (out) console.log(`wrote ${out}`);
        console.log(
          `snapshot: ${o.cycles} cycles, ${summary.requests} requests, snapshot at ${at}: ${r.mismatchCount} mismatches, ${r.memoryMismatches} block RAM words differ`,
        );
      }
      if (r.mismatchCount > 0 || r.memoryMismatches > 0 || (verilator ?? 0) > 0) process.exitCode = 1;
    });
}
