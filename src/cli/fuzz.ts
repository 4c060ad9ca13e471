/** `bloomforge fuzz`: random configs of every family, verified three ways; failures shrunk and kept. */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { FAMILIES } from '../families/index.js';
import { caseFile, fuzz, summaryLine, type FuzzOptions } from '../fuzz/index.js';
import { REPO_ROOT } from '../tools/index.js';
import { writeAll } from '../util/files.js';
import { UsageError } from '../util/errors.js';
import { intArg } from './args.js';
import { progress } from './progress.js';

/** The `--log` file: opened before the campaign (a bad path fails at once), one line per config, synced. */
function openLog(file: string): { write: NonNullable<FuzzOptions['onResult']>; close: () => void } {
  const target = path.resolve(file);
  let fd: number;
  try {
    fd = fs.openSync(target, 'a');
  } catch (e) {
    throw new UsageError(`--log: cannot open '${target}': ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return {
    write: (index, run, outcome, seconds) => {
      const line = { index, filter: run.config.filter, config: run.config, ...outcome, seconds: +seconds.toFixed(2) };
      fs.writeSync(fd, `${JSON.stringify(line)}\n`);
    },
    close: () => fs.closeSync(fd),
  };
}

function familiesArg(v: string): string[] {
  const ids = v.split(',').filter((x) => x !== '');
  const known = FAMILIES.map((f) => f.id);
  const bad = ids.find((id) => !known.includes(id));
  if (ids.length === 0 || bad !== undefined)
    throw new InvalidArgumentError(`--families: unknown family '${bad ?? v}' (known: ${known.join(', ')})`);
  return ids;
}

interface FuzzCliOptions {
  configs: number;
  ops: number;
  seed: number;
  families?: string[];
  lanes?: boolean;
  icarus?: boolean;
  verilator: boolean;
  shrink: boolean;
  cases: string | false;
  json?: boolean;
  log?: string;
}

export function registerFuzzCommand(p: Command): void {
  p.command('fuzz')
    .description(
      'random configs of every family, each refused naming a field or verified three ways (model, TS simulator, Verilator) with random back-pressure; failures shrunk and written as regression cases',
    )
    .option('--configs <n>', 'configs to draw (families in turn)', intArg('--configs', 1, 1_000_000), 100)
    .option('--ops <n>', 'operations per config', intArg('--ops', 1, 10_000_000), 20_000)
    .option('--seed <s>', 'campaign seed', intArg('--seed', 0, 0xffffffff), 1)
    .option(
      '--families <ids>',
      `comma-separated family ids (default: all: ${FAMILIES.map((f) => f.id).join(',')})`,
      familiesArg,
    )
    .option(
      '--lanes',
      'N-lane designs: each config gets lanes (1-8), shards and sometimes merge, and its lane design is checked against the sharded model (and Verilator); default families: those with lanes',
    )
    .option('--icarus', 'also compare against Icarus Verilog (one-lane designs)')
    .option('--no-verilator', 'model and TS simulator only')
    .option('--no-shrink', 'keep failures as found')
    .option('--cases <dir>', 'where failures are written', path.join(REPO_ROOT, 'test', 'fuzz-cases'))
    .option('--no-cases', 'write no regression cases')
    .option('--json', 'print JSON')
    .option('--log <file>', 'append one JSON line per config (index, family, outcome, seconds) as the campaign runs')
    .action(async (o: FuzzCliOptions) => {
      const log = o.log === undefined ? undefined : openLog(o.log);
      const bar = progress('fuzz', o.configs, 'configs', o.json);
      let r;
      try {
        r = await fuzz({
          configs: o.configs,
          ops: o.ops,
          seed: o.seed,
          ...(o.families ? { families: o.families } : {}),
          lanes: !!o.lanes,
          verilator: o.verilator,
          icarus: !!o.icarus,
          shrink: o.shrink,
          onProgress: (done, step) => bar.update(done, step),
          ...(log ? { onResult: log.write } : {}),
        });
      } finally {
        bar.stop();
        log?.close();
      }
      const files = Object.fromEntries(r.cases.map((c) => caseFile(c)).map((f) => [f.name, f.text]));
      const written = o.cases !== false && r.cases.length > 0 ? writeAll(o.cases, files, '--cases') : [];
      if (o.json) console.log(JSON.stringify({ ...r, written }, null, 2));
      else {
        const by = Object.entries(r.rejectedBy)
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ${n}`)
          .join(', ');
        if (by) console.log(`rejected, by field named: ${by}`);
        for (const c of r.cases)
          console.log(`FAILED ${JSON.stringify(c.config)} ops ${c.ops} seed ${c.seed}: ${c.failure}`);
        for (const w of written) console.log(`wrote ${w}`);
        console.log(summaryLine(r));
      }
      if (r.failed > 0) process.exitCode = 1;
    });
}
