/**
 * The experiments of every registered family (src/families/<id>/experiments.ts) and the
 * cross-family ones (a paper's comparison of several families, in a folder of its own here), run
 * one by name or several in worker threads (both cores), and written as CSV, JSON and an SVG chart.
 */
import { Worker } from 'node:worker_threads';
import { FAMILIES } from '../families/index.js';
import type {
  ExperimentDef,
  ExperimentOptions,
  ExperimentResult,
  FilterFamily,
  OptionSpec,
} from '../families/types.js';
import { UsageError } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import { toCsv, toSvg } from './chart.js';
import { dautrichExperiments } from './dautrich/experiments.js';
import { structuredKeysExperiment } from './structured/experiments.js';

/**
 * Experiments that span families (they may import several family folders), each list under the
 * name of what it reproduces.
 */
export const CROSS_FAMILY: readonly { owner: string; experiments: readonly ExperimentDef[] }[] = [
  { owner: 'dautrich', experiments: dautrichExperiments },
  { owner: 'structured', experiments: [structuredKeysExperiment] },
];

export interface RegisteredExperiment {
  /** The family id, or the owner of a cross-family list. */
  owner: string;
  /** The family, when the experiment is one family's. */
  family: FilterFamily | null;
  def: ExperimentDef;
}

export function experiments(): RegisteredExperiment[] {
  return [
    ...FAMILIES.flatMap((family) => (family.experiments ?? []).map((def) => ({ owner: family.id, family, def }))),
    ...CROSS_FAMILY.flatMap(({ owner, experiments: defs }) => defs.map((def) => ({ owner, family: null, def }))),
  ];
}

export function experimentNames(): string[] {
  return experiments().map((e) => e.def.name);
}

export function findExperiment(name: string): RegisteredExperiment {
  const e = experiments().find((x) => x.def.name === name);
  if (!e) throw new UsageError(`experiment: '${name}' is not one of ${experimentNames().join(', ')}`);
  return e;
}

/** Every experiment's own options (for the CLI), each with the experiments that take it. */
export function experimentOptions(): (OptionSpec & { name: string; experiments: string[] })[] {
  const out = new Map<string, OptionSpec & { name: string; experiments: string[] }>();
  for (const { def } of experiments())
    for (const o of def.options ?? []) {
      const known = out.get(o.name);
      if (known) known.experiments.push(def.name);
      else
        out.set(o.name, {
          flags: o.flags,
          description: o.description,
          ...(o.choices ? { choices: o.choices } : {}),
          name: o.name,
          experiments: [def.name],
        });
    }
  return [...out.values()];
}

/** The options every experiment takes, before its own. */
export type CommonOptions = Omit<ExperimentOptions, 'params' | 'progress'>;
export const COMMON_DEFAULTS: CommonOptions = { engine: 'model', seed: 1, scale: 1 };

/**
 * Runs one experiment. `given` holds values of experiments' own options. With `strict` (one
 * experiment asked for by name) an option it does not take, or --engine sim for an experiment
 * that runs on the model only, is refused; without it (report runs every experiment with one set
 * of options) they are ignored and such an experiment runs on the model.
 */
export function runExperiment(
  name: string,
  common: CommonOptions,
  given: Record<string, string | undefined> = {},
  progress?: (done: number, total: number) => void,
  strict = false,
): ExperimentResult {
  const { def } = findExperiment(name);
  if (common.engine === 'sim' && !def.simEngine) {
    if (strict) throw new UsageError(`${name} runs on the model only (--engine sim is not available for it)`);
    common = { ...common, engine: 'model' };
  }
  const own = new Map((def.options ?? []).map((o) => [o.name, o]));
  if (strict)
    for (const [k, v] of Object.entries(given))
      if (v !== undefined && !own.has(k))
        throw new UsageError(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is not an option of ${name}`);
  const params: Record<string, string> = {};
  for (const o of def.options ?? []) params[o.name] = given[o.name] ?? o.default;
  return def.run({ ...common, params, progress });
}

/** Write NAME.csv, NAME.svg and NAME.json into dir; returns the paths. */
export async function writeResult(r: ExperimentResult, dir: string): Promise<string[]> {
  return writeAll(
    dir,
    {
      [`${r.name}.csv`]: toCsv(r),
      [`${r.name}.svg`]: await toSvg(r),
      [`${r.name}.json`]: JSON.stringify(r, null, 2) + '\n',
    },
    '--out',
  );
}

/** Run experiments on `threads` worker threads; results in the order of `names`. */
export async function runInWorkers(
  names: readonly string[],
  common: CommonOptions,
  given: Record<string, string | undefined>,
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
      const w = new Worker(worker, { workerData: { name, common, given } });
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
