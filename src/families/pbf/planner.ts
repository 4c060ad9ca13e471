/**
 * Planner: the PBF-2 (or SBF) with the default equal split of bits (every level k slices of the
 * same size) whose range-query fp at |q| after n distinct pairs — summary.ts's figure, every
 * level holding n items, an upper bound — is at most p, with the least memory or, for a target,
 * the fewest block RAMs that fit (then the least memory, then the fewest hashes). `plan --filter
 * pbf2 --items n --fp p --horizon T [--query-length q]`, or a config with `items` and `fp` (and
 * `horizon`, `queryLength`) instead of sizes.
 */
import { bramBlocks } from '../../device/index.js';
import { choose, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import { failer } from '../schema.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { K_MAX } from './analysis.js';
import { derivePbf, MAX_HORIZON } from './config.js';
import { analyzePbf } from './summary.js';
import type { PbfDerived } from './types.js';

export function blockRamsFor(c: PbfDerived, target = c.target): number {
  return c.levels.reduce((s, l) => s + l.k * bramBlocks(target, c.wordBits, l.sliceBits / c.wordBits), 0);
}

const SIZES = ['k', 'sliceBits', 'levelSliceBits'] as const;

function candidates(k: PlanConstraints): PbfDerived[] {
  const out: PbfDerived[] = [];
  const fail = failer('plan');
  for (let e = 4; e <= 20; e++)
    for (let kk = 1; kk <= K_MAX; kk++) {
      try {
        const c = derivePbf(
          {
            name: k.name ?? 'planned',
            filter: k.filter,
            horizon: k.extra.horizon,
            queryLength: k.extra.queryLength,
            k: kk,
            sliceBits: 2 ** e,
            items: k.window,
            keyBits: k.keyBits ?? 32,
            seed: k.seed ?? 1,
            ...(k.target ? { target: k.target } : {}),
          },
          fail,
        );
        out.push(c);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
      }
    }
  return out;
}

export function evaluate(c: PbfDerived, k: PlanConstraints): Evaluated<PbfDerived> {
  const a = analyzePbf(c);
  const blockRams = blockRamsFor(c, k.target ?? c.target);
  return {
    candidate: { config: c, fp: a.fp, memoryBits: a.bits, blockRams, bitsPerElement: a.bits / k.window },
    checks: [
      { name: 'fp', ok: a.fp <= k.fp, detail: `fp ${a.fp.toExponential(3)} > ${k.fp}` },
      targetCheck(blockRams, k),
    ],
    cost: k.target ? [blockRams, a.bits, c.k] : [a.bits, blockRams, c.k],
  };
}

export function planPbf(k: PlanConstraints): Plan<PbfDerived> {
  if (!(k.window >= 1) || !Number.isInteger(k.window))
    throw new ConfigError('plan: --items must be a positive integer');
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
  const T = k.extra.horizon;
  if (T === undefined || !Number.isInteger(Math.log2(T)) || T < 2 || T > MAX_HORIZON)
    throw new ConfigError(`plan: --horizon must be a power of two in 2..${MAX_HORIZON} (the time horizon T)`);
  if (k.filter === 'pbf1') throw new ConfigError('plan: field filter: pbf1 is a model only; plan pbf2 or sbf');
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

export const pbfPlanner: FamilyPlanner<PbfDerived> = {
  sizeBy: 'items',
  options: [
    { flags: '--horizon <T>', description: 'persistent filters: the time horizon T (a power of two)' },
    {
      flags: '--query-length <q>',
      description: 'persistent filters: the range length |q| the fp is for (default 128)',
    },
  ],
  extra: (values) => ({ horizon: num(values.horizon), queryLength: num(values.queryLength) }),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.fp === undefined) return null;
    const sized = SIZES.find((f) => cfg[f] !== undefined);
    if (sized) fail('fp', `with items and fp the planner chooses k and sliceBits; leave out ${sized}, or leave out fp`);
    if (cfg.items === undefined) fail('items', 'required with fp: the distinct (key, time) pairs the filter must hold');
    if (cfg.horizon === undefined) fail('horizon', 'required: the time horizon T');
    return {
      filter: cfg.filter as string,
      window: cfg.items as number,
      fp: cfg.fp as number,
      target: cfg.target as PlanConstraints['target'],
      keyBits: cfg.keyBits as number,
      seed: cfg.seed as number,
      name: cfg.name as string,
      extra: { horizon: cfg.horizon as number, queryLength: cfg.queryLength as number | undefined },
    };
  },
  plan: planPbf,
  configOf(p: Plan<PbfDerived>, base?: Readonly<Record<string, unknown>>) {
    const c = p.winner.config;
    return {
      name: c.name,
      filter: c.filter,
      horizon: c.horizon,
      k: c.k,
      sliceBits: c.levels[0]!.sliceBits,
      items: c.items,
      queryLength: c.queryLength,
      keyBits: c.keyBits,
      seed: c.seed,
      ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
      target: c.target,
      description: `planned for ${p.constraints.window} distinct pairs, range fp <= ${p.constraints.fp} at |q| = ${c.queryLength}`,
    };
  },
  record: (k) => ({
    items: k.window,
    fp: k.fp,
    queryLength: k.extra.queryLength ?? Math.min(128, k.extra.horizon ?? 128),
  }),
  figures(c: Candidate<PbfDerived>) {
    const a = analyzePbf(c.config);
    return { horizon: a.horizon, queryLength: a.queryLength, probes: a.probes, queryCycles: a.queryCycles };
  },
  shape(c: PbfDerived) {
    return {
      text: `T=${c.horizon} k=${c.k} slices of ${c.levels[0]!.sliceBits} bits x ${c.levels.length} levels`,
      json: { horizon: c.horizon, k: c.k, sliceBits: c.levels[0]!.sliceBits, levels: c.levels.length },
    };
  },
};
