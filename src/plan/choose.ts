/**
 * The part of every family's planner that is not the family's: given the evaluated candidates
 * (each with its constraint checks in a fixed order and a cost vector), pick the cheapest one that
 * meets every constraint, count the rejections, keep the near misses, and — when nothing
 * qualifies — name the constraint that binds.
 */
import { DEFAULT_TARGET, device, type Target } from '../device/index.js';
import { ConfigError } from '../util/errors.js';
import type { Candidate, FilterConfig, Plan, PlanConstraints } from '../families/types.js';

export interface Check {
  /** Constraint name as its option is spelled (fp, max-npws, target, …). */
  name: string;
  ok: boolean;
  detail: string;
}

/** The `target` check: the candidate's block RAMs fit the constraint's part (always ok without one). */
export function targetCheck(blockRams: number, k: PlanConstraints): Check {
  const cap = k.target ? device(k.target).capacity : null;
  return {
    name: 'target',
    ok: cap === null || blockRams <= cap.brams,
    detail: `${blockRams} block RAMs > ${cap?.brams} on ${k.target}`,
  };
}

export interface Evaluated<C extends FilterConfig> {
  candidate: Omit<Candidate<C>, 'rejected'>;
  /** The constraints in the order they are reported; the first failing one rejects. */
  checks: Check[];
  /** Lexicographic cost: lower is better. */
  cost: number[];
}

/** The constraints a written config states: its window and fp, and its target, name, key and seed. */
export function constraintsOf(
  cfg: Readonly<Record<string, unknown>>,
  extra: Record<string, number | undefined>,
): PlanConstraints {
  return {
    filter: cfg.filter as string,
    window: cfg.window as number,
    fp: cfg.fp as number,
    // A config without a target is planned for the default part, the one it will be built for.
    target: (cfg.target as Target | undefined) ?? DEFAULT_TARGET,
    keyBits: cfg.keyBits as number,
    seed: cfg.seed as number,
    name: cfg.name as string,
    extra,
  };
}

/** Lexicographic order on cost vectors. */
export function less(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/** The window and fp every plan needs, checked before any candidate is built. */
export function checkIntent(k: PlanConstraints): void {
  if (!(k.window >= 1) || !Number.isInteger(k.window))
    throw new ConfigError('plan: --window must be a positive integer');
  if (!(k.fp > 0 && k.fp < 1)) throw new ConfigError('plan: --fp must be in (0, 1)');
}

export function choose<C extends FilterConfig>(
  k: PlanConstraints,
  evaluated: readonly Evaluated<C>[],
  sizeBy: 'window' | 'items' = 'window',
): Plan<C> {
  if (evaluated.length === 0)
    throw new ConfigError(
      `plan: no ${k.filter} config can be built for --${sizeBy} ${k.window} (every candidate is beyond the config's limits)`,
    );
  const all = evaluated.map((e) => {
    const bad = e.checks.find((x) => !x.ok);
    return {
      cand: { ...e.candidate, rejected: bad ? { by: bad.name, detail: bad.detail } : null } as Candidate<C>,
      e,
    };
  });
  const rejectedBy: Record<string, number> = {};
  for (const { cand } of all) if (cand.rejected) rejectedBy[cand.rejected.by] = (rejectedBy[cand.rejected.by] ?? 0) + 1;
  const ok = all.filter((x) => x.cand.rejected === null);
  if (ok.length === 0) {
    // The constraint that binds: the first one no candidate meets together with the ones before it.
    const names = evaluated[0]?.checks.map((x) => x.name) ?? ['fp'];
    const bind = names.findIndex((_, i) => !evaluated.some((e) => e.checks.slice(0, i + 1).every((x) => x.ok)));
    throw new ConfigError(
      `plan: no ${k.filter} meets the constraints: --${names[bind] ?? names[0]} binds (${all.length} candidates; ` +
        Object.entries(rejectedBy)
          .map(([r, n]) => `${n} rejected by ${r}`)
          .join(', ') +
        ')',
    );
  }
  const winner = ok.reduce((best, x) => (less(x.e.cost, best.e.cost) ? x : best));
  const nearMisses = all
    .filter((x) => x.cand.rejected !== null && x.cand.fp < 10 * k.fp)
    .sort((a, b) => (less(a.e.cost, b.e.cost) ? -1 : 1))
    .slice(0, 5)
    .map((x) => x.cand);
  return { constraints: k, winner: winner.cand, considered: all.length, rejectedBy, nearMisses };
}
