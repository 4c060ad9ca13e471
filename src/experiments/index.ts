/** The experiment registry: run one by name, or several in worker threads (both cores). */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  decayExperiment,
  duplicatesExperiment,
  fillRatioExperiment,
  fpConvergenceExperiment,
} from '../families/apbf/experiments.js';
import { btbfPenaltyExperiment } from '../families/tbf/experiments.js';
import { toCsv, toSvg, type ExperimentResult } from './chart.js';

export const EXPERIMENTS = ['fill-ratio', 'decay', 'fp-convergence', 'duplicates', 'btbf-penalty'] as const;
export type ExperimentName = (typeof EXPERIMENTS)[number];

export interface RunOptions {
  engine: 'model' | 'sim';
  seed: number;
  scale: number;
  stream: 'uniform' | 'zipf';
  window: number;
  universe: number;
  bpiFrom: number;
  bpiTo: number;
  queries: number;
  progress?: (done: number, total: number) => void;
}

export const DEFAULT_RUN: RunOptions = {
  engine: 'model',
  seed: 1,
  scale: 1,
  stream: 'uniform',
  window: 4096,
  universe: 8192,
  bpiFrom: 4,
  bpiTo: 12,
  queries: 20_000,
};

export function runExperiment(name: ExperimentName, o: RunOptions): ExperimentResult {
  const base = { engine: o.engine, seed: o.seed, scale: o.scale, progress: o.progress };
  switch (name) {
    case 'fill-ratio':
      return fillRatioExperiment(base);
    case 'decay':
      return decayExperiment(base);
    case 'fp-convergence':
      return fpConvergenceExperiment(base);
    case 'duplicates':
      return duplicatesExperiment(base);
    case 'btbf-penalty':
      return btbfPenaltyExperiment({
        stream: o.stream,
        window: o.window,
        universe: o.universe,
        bpiFrom: o.bpiFrom,
        bpiTo: o.bpiTo,
        queries: o.queries,
        seed: o.seed,
        progress: o.progress,
      });
  }
}

/** Write NAME.csv, NAME.svg and NAME.json into dir; returns the paths. */
export async function writeResult(r: ExperimentResult, dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    [`${r.name}.csv`, toCsv(r)],
    [`${r.name}.svg`, await toSvg(r)],
    [`${r.name}.json`, JSON.stringify(r, null, 2) + '\n'],
  ];
  return files.map(([f, text]) => {
    const p = path.join(dir, f);
    fs.writeFileSync(p, text);
    return p;
  });
}

/** Run experiments on `threads` worker threads; results in the order of `names`. */
export async function runInWorkers(
  names: readonly ExperimentName[],
  o: Omit<RunOptions, 'progress'>,
  threads: number,
  onDone?: (name: string) => void,
): Promise<ExperimentResult[]> {
  const results = new Map<string, ExperimentResult>();
  const queue = [...names];
  const worker = new URL('./worker.mjs', import.meta.url);
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const name = queue.shift();
      if (!name) return resolve();
      const w = new Worker(worker, { workerData: { name, o } });
      w.once('message', (r: ExperimentResult) => {
        results.set(name, r);
        onDone?.(name);
      });
      w.once('error', reject);
      w.once('exit', () => one().then(resolve, reject));
    });
  await Promise.all(Array.from({ length: Math.max(1, threads) }, one));
  return names.map((n) => results.get(n)!);
}
