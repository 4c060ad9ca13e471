/** CLI: experiment (one of the papers' experiments) and report (all of them on one HTML page). */
import os from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import { toSvg } from '../experiments/chart.js';
import {
  COMMON_DEFAULTS,
  experimentNames,
  experimentOptions,
  runExperiment,
  runInWorkers,
  writeResult,
  type CommonOptions,
} from '../experiments/index.js';
import { reportHtml } from '../experiments/report.js';
import { UsageError } from '../util/errors.js';
import { makeDir, writeAll } from '../util/files.js';
import { addContributed, contributedValues, intArg } from './args.js';
import { progress, type Progress } from './progress.js';

interface Flags {
  engine: string;
  seed: number;
  scale: number;
  json?: boolean;
  out: string;
  [key: string]: unknown;
}

function scaleArg(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0.01) throw new InvalidArgumentError('--scale must be a number >= 0.01');
  return n;
}

function commonOptions(f: Flags): CommonOptions {
  if (f.engine !== 'model' && f.engine !== 'sim') throw new UsageError('--engine must be model or sim');
  return { engine: f.engine, seed: f.seed, scale: f.scale };
}

/** The common options and every experiment's own ones (their defaults are the experiment's). */
function withOptions(c: Command): { cmd: Command; keys: string[] } {
  c.option('--engine <e>', 'model | sim (the RTL in the compiled simulator)', COMMON_DEFAULTS.engine)
    .option('--seed <s>', 'seed', intArg('--seed', 0, 0xffffffff), COMMON_DEFAULTS.seed)
    .option('--scale <x>', 'multiply probe counts (at least 0.01)', scaleArg, COMMON_DEFAULTS.scale);
  const keys = addContributed(
    c,
    experimentOptions().map((o) => ({ ...o, description: `${o.description} (${o.experiments.join(', ')})` })),
  );
  return { cmd: c, keys };
}

export function registerExperimentCommands(p: Command): void {
  const names = experimentNames();
  const one = withOptions(
    p
      .command('experiment')
      .description(`run one of the papers' experiments: ${names.join(', ')}; writes CSV, SVG and JSON`)
      .argument('<name>', names.join(' | ')),
  );
  one.cmd
    .option('--json', 'print the result as JSON')
    .option('-o, --out <dir>', 'output directory', 'out/experiments')
    .action(async (name: string, f: Flags) => {
      const common = commonOptions(f);
      makeDir(f.out, '--out');
      const bar: { p: Progress | null } = { p: null };
      const onProgress = (done: number, total: number): void => {
        bar.p ??= progress(name, total, 'steps', !!f.json);
        bar.p.update(done);
      };
      let r;
      try {
        r = runExperiment(name, common, contributedValues(f, one.keys), onProgress, true);
      } finally {
        bar.p?.stop();
      }
      const files = await writeResult(r, f.out);
      if (f.json) console.log(JSON.stringify(r, null, 2));
      else {
        for (const c of r.checks ?? []) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.what}`);
        for (const file of files) console.log(`wrote ${file}`);
      }
    });

  const all = withOptions(
    p.command('report').description('run every experiment (both cores) and gather them into one HTML page'),
  );
  all.cmd
    .option('-o, --out <dir>', 'output directory', 'out/report')
    .option('--only <names>', 'comma-separated experiments to run (default: all)')
    .action(async (f: Flags) => {
      const common = commonOptions(f);
      const chosen = typeof f.only === 'string' ? f.only.split(',').map((x) => x.trim()) : names;
      for (const x of chosen)
        if (!names.includes(x)) throw new UsageError(`--only: '${x}' is not one of ${names.join(', ')}`);
      makeDir(f.out, '--out'); // before minutes of experiments: a bad folder fails now
      const bar = progress('report', chosen.length, 'experiments');
      let n = 0;
      // Experiments that run on the model only do so here whatever --engine says.
      let results;
      try {
        results = await runInWorkers(
          chosen,
          common,
          contributedValues(f, all.keys),
          Math.min(2, os.cpus().length),
          (x) => bar.update(++n, x),
        );
      } finally {
        bar.stop();
      }
      const pages: { r: (typeof results)[number]; svg: string }[] = [];
      for (const r of results) {
        await writeResult(r, f.out);
        pages.push({ r, svg: await toSvg(r) });
      }
      const [index] = writeAll(f.out, { 'index.html': reportHtml(pages) }, '--out');
      for (const r of results)
        for (const c of r.checks ?? []) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${c.what}`);
      console.log(`wrote ${index}`);
    });
}
