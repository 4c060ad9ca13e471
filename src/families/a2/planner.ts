/**
 * A² planner (`plan --filter a2 --window w --fp p`): the seed's optimum — k_a* = ⌊−log2 φ_a⌋
 * with φ_a = 1 − √(1 − p), κ_a* = ⌊m/(2k) · ln 2⌋ (libBf manual, "Aging" → "A²") — sized so
 * that κ_a* ≥ w with power-of-two banks (block RAM depths), then checked with the exact worst-case
 * rate of ./analysis.ts. Because k_a* is rounded down, a half at κ_a* reports ≈ 2^−k_a* ≥ φ_a,
 * so the seed's pair can miss p; the candidates are therefore k_a* and k_a* + 1 hashes, each with
 * the smallest bank whose κ_a* covers w and the next one, each with κ = κ_a* (the seed's) and κ =
 * w (the window asked for, lower fill). The cheapest that meets p (memory, or block RAMs with
 * --target) wins; every candidate is a config `generate` accepts (the zero-stall bound included).
 */
import { bramBlocks } from '../../device/index.js';
import { checkIntent, choose, constraintsOf, type Evaluated, targetCheck } from '../../plan/choose.js';
import { ConfigError } from '../../util/errors.js';
import type { Candidate, FamilyPlanner, Fail, Plan, PlanConstraints } from '../types.js';
import { fpWorst, optimalK, optimalKappa } from './analysis.js';
import { deriveA2 } from './config.js';
import type { A2Derived } from './types.js';

/** Block RAM primitives of a config on its target: 3k banks of depth × wordBits. */
export function a2BlockRams(c: A2Derived, target = c.target): number {
  return 3 * c.k * bramBlocks(target, c.wordBits, c.depth);
}

/** The smallest power-of-two bank whose κ* = ⌊bankBits · ln 2⌋ is at least w. */
export function bankFor(window: number): number {
  let b = 2;
  while (Math.floor(b * Math.LN2) < window) b *= 2;
  return b;
}

function candidates(k: PlanConstraints): A2Derived[] {
  const out: A2Derived[] = [];
  const k0 = optimalK(k.fp);
  for (const hashes of [k0, k0 + 1]) {
    for (const bankBits of [bankFor(k.window), 2 * bankFor(k.window)]) {
      const kappaStar = optimalKappa(2 * hashes * bankBits, hashes);
      for (const kappa of new Set([kappaStar, k.window])) {
        if (kappa < k.window) continue;
        try {
          out.push(
            deriveA2({
              name: k.name ?? 'planned',
              filter: 'a2',
              k: hashes,
              bankBits,
              kappa,
              keyBits: k.keyBits ?? 64,
              seed: k.seed ?? 1,
              ...(k.target ? { target: k.target } : {}),
            }),
          );
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
        }
      }
    }
  }
  return out;
}

function evaluate(c: A2Derived, k: PlanConstraints): Evaluated<A2Derived> {
  const fp = fpWorst(c.k, c.bankBits, c.kappa);
  const blockRams = a2BlockRams(c, k.target ?? c.target);
  const memoryBits = 3 * c.k * c.bankBits;
  return {
    candidate: { config: c, fp, memoryBits, blockRams, bitsPerElement: c.bits / c.window },
    checks: [{ name: 'fp', ok: fp <= k.fp, detail: `fp ${fp.toExponential(3)} > ${k.fp}` }, targetCheck(blockRams, k)],
    cost: k.target ? [blockRams, memoryBits, c.k] : [memoryBits, blockRams, c.k],
  };
}

export function planA2(k: PlanConstraints): Plan<A2Derived> {
  checkIntent(k);
  if (k.window > 1 << 24) throw new ConfigError('plan: --window must be at most 2^24 for a2');
  const evaluated = candidates(k).map((c) => evaluate(c, k));
  if (evaluated.length === 0)
    throw new ConfigError(
      `plan: no a2 meets the constraints: --window ${k.window} is too short to flush a half in the background (use --window >= 13)`,
    );
  return choose(k, evaluated);
}

export function a2PlanConfig(p: Plan<A2Derived>, base?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const c = p.winner.config;
  const target = base?.target ?? p.constraints.target;
  return {
    name: c.name,
    filter: 'a2',
    k: c.k,
    kappa: c.kappa,
    bankBits: c.bankBits,
    wordBits: c.wordBits,
    keyBits: c.keyBits,
    seed: c.seed,
    ...(base?.tagBits !== undefined ? { tagBits: base.tagBits } : {}),
    ...(target ? { target } : {}),
    description: `planned for window >= ${p.constraints.window}, fp <= ${p.constraints.fp}`,
  };
}

const SIZES = ['k', 'kappa', 'bankBits', 'wordBits'] as const;

export const a2Planner: FamilyPlanner<A2Derived> = {
  sizeBy: 'window',
  options: [],
  extra: () => ({}),
  intent(cfg: Readonly<Record<string, unknown>>, fail: Fail): PlanConstraints | null {
    if (cfg.window === undefined && cfg.fp === undefined) return null;
    if (cfg.window === undefined || cfg.fp === undefined)
      fail(cfg.window === undefined ? 'window' : 'fp', 'give both window and fp for the planner (or k and bankBits)');
    const given = SIZES.find((f) => cfg[f] !== undefined);
    if (given) fail(given, 'with window and fp the planner chooses every size; leave it out');
    return constraintsOf(cfg, {});
  },
  plan: planA2,
  configOf: a2PlanConfig,
  record: (k) => ({ window: k.window, fp: k.fp }),
  figures(c: Candidate<A2Derived>) {
    const d = c.config;
    return {
      window: d.window,
      slack: d.slack,
      kappaStar: optimalKappa(d.bits, d.k),
      accessesFalse: 2 * d.k,
    };
  },
  shape(c: A2Derived) {
    return {
      text: `k=${c.k} kappa=${c.kappa} bankBits=${c.bankBits} W=${c.wordBits}`,
      json: { k: c.k, kappa: c.kappa, bankBits: c.bankBits, wordBits: c.wordBits },
    };
  },
};
