/**
 * Planner: the basic, partitioned or blocked filter that holds n items with a false-positive
 * rate at most p after the n inserts, with the least memory — or, for a target part, the fewest
 * block RAMs that fit it (then the least memory, then the fewest probes k: for the basic filter
 * that is also the most ops per cycle, II = k). The fp is the exact one of analysis.ts, so a
 * plan is a promise the model keeps. `sizeBy: 'items'`: `plan --items n --fp p`, or a config
 * with `items` and `fp` instead of sizes.
 */
import { bramBlocks } from '../../device/index.js';
import { choose, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { accessesFalse, fpExact, probeFill } from './analysis.js';
import { deriveBloom, MAX_BITS } from './config.js';
import type { BloomDerived } from './types.js';

/** Block RAM primitives of a config on a target: every column's memory, at its best mode. */
export function blockRamsFor(c: BloomDerived, target = c.target): number {
  return c.columns * bramBlocks(target, c.wordBits, c.columnDepth);
}

/** The sizes a planned config may not give (the planner chooses them). */
const SIZES = ['k', 'bits', 'sliceBits', 'blockBits', 'bitsPerBlock'] as const;

/** Blocked shapes the planner tries: B from 32 to 4096 bits, b = 2..16 parts. */
const BLOCKS = [32, 64, 128, 256, 512, 1024, 2048, 4096];
const PARTS = [2, 4, 8, 16];
/** Probes the planner tries for the basic and partitioned filters. */
const MAX_PLANNED_K = 32;

function candidates(k: PlanConstraints): BloomDerived[] {
  const out: BloomDerived[] = [];
  const common = {
    name: k.name ?? 'planned',
    filter: k.filter,
    items: k.window,
    keyBits: k.keyBits ?? 64,
    seed: k.seed ?? 1,
    ...(k.target ? { target: k.target } : {}),
    ...(k.extra.wordBits !== undefined ? { wordBits: k.extra.wordBits } : {}),
  };
  const sizes: Record<string, number>[] = [];
  for (let e = 1; 2 ** e <= MAX_BITS; e++) {
    const size = 2 ** e;
    if (k.filter === 'basic') for (let kk = 1; kk <= MAX_PLANNED_K; kk++) sizes.push({ k: kk, bits: size });
    if (k.filter === 'partitioned')
      for (let kk = 1; kk <= MAX_PLANNED_K && kk * size <= MAX_BITS; kk++) sizes.push({ k: kk, sliceBits: size });
    if (k.filter === 'blocked')
      for (const B of BLOCKS)
        for (const b of PARTS) if (b < B) sizes.push({ blockBits: B, bitsPerBlock: b, bits: size });
  }
  for (const s of sizes) {
    try {
      out.push(deriveBloom({ ...common, ...s }));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
    }
  }
  return out;
}

export function evaluate(c: BloomDerived, k: PlanConstraints): Evaluated<BloomDerived> {
  const fp = fpExact(c, k.window);
  const blockRams = blockRamsFor(c, k.target ?? c.target);
  return {
    candidate: { config: c, fp, memoryBits: c.bits, blockRams, bitsPerElement: c.bits / k.window },
    checks: [{ name: 'fp', ok: fp <= k.fp, detail: `fp ${fp.toExponential(3)} > ${k.fp}` }, targetCheck(blockRams, k)],
    cost: k.target ? [blockRams, c.bits, c.k] : [c.bits, blockRams, c.k],
  };
}

export function planBloom(k: PlanConstraints): Plan<BloomDerived> {
  if (!(k.window >= 1) || !Number.isInteger(k.window) || k.window > MAX_BITS)
    throw new ConfigError(`plan: --items must be an integer in 1..${MAX_BITS}`);
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
  return choose(
    k,
    candidates(k).map((c) => evaluate(c, k)),
  );
}

/** The config JSON a plan writes (accepted by `generate`). */
export function bloomPlanConfig(
  p: Plan<BloomDerived>,
  base?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const c = p.winner.config;
  const k = p.constraints;
  const sizes =
    c.filter === 'blocked'
      ? { blockBits: c.blockBits, bitsPerBlock: c.k, bits: c.bits }
      : c.filter === 'partitioned'
        ? { k: c.k, sliceBits: c.columnBits }
        : { k: c.k, bits: c.bits };
  return {
    name: c.name,
    filter: c.filter,
    ...sizes,
    items: c.items,
    keyBits: c.keyBits,
    seed: c.seed,
    ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
    ...(k.extra.wordBits !== undefined ? { wordBits: c.wordBits } : {}),
    target: c.target,
    description: `planned for ${k.window} items, fp <= ${k.fp}`,
  };
}

export const bloomPlanner: FamilyPlanner<BloomDerived> = {
  sizeBy: 'items',
  options: [],
  extra: () => ({}),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.fp === undefined) return null; // explicit sizes: derive checks them
    const sized = SIZES.find((f) => cfg[f] !== undefined);
    if (sized)
      fail(
        'fp',
        `with items and fp the planner chooses every size; leave out ${sized} (and ${SIZES.join(', ')}), or leave out fp`,
      );
    if (cfg.items === undefined) fail('items', 'required with fp: the number of items the filter must hold');
    return {
      filter: cfg.filter as string,
      window: cfg.items as number,
      fp: cfg.fp as number,
      target: cfg.target as PlanConstraints['target'],
      keyBits: cfg.keyBits as number,
      seed: cfg.seed as number,
      name: cfg.name as string,
      extra: { wordBits: cfg.wordBits as number | undefined },
    };
  },
  plan: planBloom,
  configOf: bloomPlanConfig,
  record: (k) => ({ items: k.window, fp: k.fp }),
  figures(c: Candidate<BloomDerived>) {
    const d = c.config;
    return {
      items: d.items,
      fill: probeFill(d, d.items),
      accessesFalse: d.filter === 'blocked' ? 1 : accessesFalse(probeFill(d, d.items), d.k),
      opsPerCycle: 1 / d.initiationInterval,
    };
  },
  shape(c: BloomDerived) {
    const text =
      c.filter === 'blocked'
        ? `B=${c.blockBits} b=${c.k} m=${c.bits}`
        : c.filter === 'partitioned'
          ? `k=${c.k} slices of ${c.columnBits} bits (m=${c.bits})`
          : `k=${c.k} m=${c.bits}`;
    return {
      text,
      json: { k: c.k, m: c.bits, ...(c.filter === 'blocked' ? { B: c.blockBits } : {}) },
    };
  },
};
