/** CLI: experiment (one of the papers' experiments) and report (all of them on one HTML page). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { toSvg } from '../experiments/chart.js';
import {
  DEFAULT_RUN,
  EXPERIMENTS,
  runExperiment,
  runInWorkers,
  writeResult,
  type ExperimentName,
  type RunOptions,
} from '../experiments/index.js';
import { reportHtml } from '../experiments/report.js';
import { UsageError } from './errors.js';

interface Flags {
  engine: string;
  seed: string;
  scale: string;
  stream: string;
  window: string;
  universe: string;
  bpi: string;
  queries: string;
  json?: boolean;
  out: string;
}

function runOptions(f: Flags): RunOptions {
  const num = (v: string, name: string, min: number): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new UsageError(`${name} must be a number >= ${min}`);
    return n;
  };
  if (f.engine !== 'model' && f.engine !== 'sim') throw new UsageError('--engine must be model or sim');
  if (f.stream !== 'uniform' && f.stream !== 'zipf') throw new UsageError('--stream must be uniform or zipf');
  const m = /^(\d+)\.\.(\d+)$/.exec(f.bpi);
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[1]) < 1)
    throw new UsageError('--bpi must look like A..B with 1 <= A <= B');
  return {
    engine: f.engine,
    seed: num(f.seed, '--seed', 0),
    scale: num(f.scale, '--scale', 0.01),
    stream: f.stream,
    window: num(f.window, '--window', 16),
    universe: num(f.universe, '--universe', 2),
    bpiFrom: Number(m[1]),
    bpiTo: Number(m[2]),
    queries: num(f.queries, '--queries', 100),
  };
}

function common(c: Command): Command {
  return c
    .option('--engine <e>', 'model | sim (the RTL in the compiled simulator)', DEFAULT_RUN.engine)
    .option('--seed <s>', 'seed', String(DEFAULT_RUN.seed))
    .option('--scale <x>', 'multiply probe counts', String(DEFAULT_RUN.scale))
    .option('--stream <s>', 'btbf-penalty: uniform | zipf', DEFAULT_RUN.stream)
    .option('--window <w>', 'btbf-penalty: window', String(DEFAULT_RUN.window))
    .option('--universe <u>', 'btbf-penalty: |U|', String(DEFAULT_RUN.universe))
    .option('--bpi <a..b>', 'btbf-penalty: bits per item range', `${DEFAULT_RUN.bpiFrom}..${DEFAULT_RUN.bpiTo}`)
    .option('--queries <n>', 'btbf-penalty: queries per trial', String(DEFAULT_RUN.queries));
}

export function registerExperimentCommands(p: Command): void {
  common(
    p
      .command('experiment')
      .description(`run one of the papers' experiments: ${EXPERIMENTS.join(', ')}; writes CSV, SVG and JSON`)
      .argument('<name>', EXPERIMENTS.join(' | ')),
  )
    .option('--json', 'print the result as JSON')
    .option('-o, --out <dir>', 'output directory', 'out/experiments')
    .action(async (name: string, f: Flags) => {
      if (!(EXPERIMENTS as readonly string[]).includes(name))
        throw new UsageError(`experiment: '${name}' is not one of ${EXPERIMENTS.join(', ')}`);
      const o = runOptions(f);
      if (name === 'btbf-penalty' && o.engine === 'sim')
        throw new UsageError(
          'btbf-penalty runs on the model: its §6.1.2 parameters (any bank size and block size) are not hardware configs; ' +
            'measure the RTL decision unit with: bloomforge simulate CFG --penalties random',
        );
      const bar = new cliProgress.SingleBar(
        { format: `${name} [{bar}] {percentage}%`, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      let started = false;
      o.progress = (done, total) => {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      };
      const r = runExperiment(name as ExperimentName, o);
      if (started) bar.stop();
      const files = await writeResult(r, f.out);
      if (f.json) console.log(JSON.stringify(r, null, 2));
      else {
        for (const c of r.checks ?? []) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.what}`);
        for (const file of files) console.log(`wrote ${file}`);
      }
    });

  common(p.command('report').description('run every experiment (both cores) and gather them into one HTML page'))
    .option('-o, --out <dir>', 'output directory', 'out/report')
    .action(async (f: Flags) => {
      const o = runOptions(f);
      const bar = new cliProgress.SingleBar(
        { format: 'experiments [{bar}] {value}/{total}', clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(EXPERIMENTS.length, 0);
      let n = 0;
      const results = await runInWorkers(EXPERIMENTS, o, Math.min(2, os.cpus().length), () => bar.update(++n));
      bar.stop();
      const pages: { r: (typeof results)[number]; svg: string }[] = [];
      for (const r of results) {
        await writeResult(r, f.out);
        pages.push({ r, svg: await toSvg(r) });
      }
      const index = path.join(f.out, 'index.html');
      fs.writeFileSync(index, reportHtml(pages));
      for (const r of results)
        for (const c of r.checks ?? []) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${c.what}`);
      console.log(`wrote ${index}`);
    });
}
