/**
 * `experiment structured-keys` (issue 23 item 6): the false-positive rate of every preset's
 * filter under structured keys — sequential counters, IPv4 5-tuples varying in a few fields, a
 * Gray-code counter (consecutive keys differ in one bit), keys sharing a long prefix — beside
 * random keys and the family's analytic fp.
 *
 * H3 is linear over GF(2): the hashes of a structured key set are the image of a structured set
 * under a linear map, not independent uniform values, so the analysis (which assumes the latter)
 * may not hold. The experiment measures it with each family's software filter (the compiled
 * filter, equal to the reference model bit for bit) on the config's own H3 hashes:
 *
 *  - a filter with a window (APBF, TBF, A², …) or one that ages (stable, GBF): warm-up inserts
 *    (ten windows, or the family's aging run, whichever is longer), then `queries` rounds of one
 *    insert and one query of a fresh key — the fp averaged over the aging cycle;
 *  - a set or multiset filter (Bloom, counting, bitwise): its capacity n of inserts, then
 *    `queries` queries of fresh keys — the fp after n inserts, which its analysis gives.
 *
 * A filter that neither ages by events nor has a capacity (GBF) runs as a windowed one over the
 * window its config states.
 *
 * Inserted and queried keys are two disjoint sets of the same shape (workloads.ts). A
 * workload is flagged harmful for a filter when its fp is above the analytic value's 99 %
 * interval AND above the random-key fp by more than the 99 % two-sample bound (both bounds
 * Bonferroni-corrected over every preset × structured workload of the run, so 120 comparisons
 * do not flag one by chance): the analytic figure of a windowed filter is its worst moment, so
 * the random-key fp sits below it and only both together mean the structure costs fp. The
 * queries of one filter are not independent (they share its state), so the bounds are a guide,
 * not an exact test. Each preset runs with H3 alone (`keyMix: "none"`) and with the key mix
 * (`"spn"`, src/model/keyMix.ts).
 */
import type { ExperimentDef, ExperimentOptions, ExperimentResult, Series } from '../../families/types.js';
import { loadPreset, presetNames, resolveConfig } from '../../config/resolve.js';
import type { Filter } from '../../families/filter.js';
import { keyOfIndex, STRUCTURED, structuredBits, structuredKey } from '../../../sim/verify/workloads.js';
import { UsageError } from '../../util/errors.js';
import { KEY_MIXES, type KeyMix } from '../../model/keyMix.js';
import { normalQuantile } from '../../analysis/stats.js';

export const WORKLOADS = ['random', ...STRUCTURED] as const;
export type KeyWorkload = (typeof WORKLOADS)[number];

export interface WorkloadFp {
  workload: KeyWorkload;
  keyBits: number;
  queries: number;
  positives: number;
  fp: number;
  /** Above the analytic 99 % interval and above the random-key fp beyond the 99 % bound. */
  harmful: boolean;
  /** (fp − random fp) / its standard error. */
  zVsRandom: number | null;
}

export interface PresetFp {
  preset: string;
  family: string;
  filter: string;
  keyMix: KeyMix;
  protocol: 'window' | 'capacity';
  inserts: number;
  analytic: number;
  /** The top of the analytic fp's 99 % interval for `queries` queries (Bonferroni over the run's comparisons). */
  analyticHigh: number;
  workloads: WorkloadFp[];
}

/** A response's membership answer (true/false, a count, or an object with `hit`). */
function hitOf(r: unknown): boolean {
  if (typeof r === 'object' && r !== null) return Boolean((r as { hit?: unknown }).hit);
  if (typeof r === 'bigint') return r !== 0n;
  return Boolean(r);
}

function keyFor(w: KeyWorkload, i: number, keyBits: number, stream: 0 | 1): bigint {
  return w === 'random' ? keyOfIndex(i, keyBits, 5 + stream) : structuredKey(w, i, keyBits, stream);
}

/** The preset's filter with a key wide enough for the workload (a 5-tuple: 104 bits). */
function filterFor(preset: string, w: KeyWorkload, keyMix: KeyMix): Filter {
  const raw: Record<string, unknown> = { ...(loadPreset(preset) as Record<string, unknown>), keyMix };
  const base = resolveConfig(raw, `preset ${preset}`);
  const need = w === 'random' ? 0 : structuredBits(w);
  if (base.config.keyBits >= need) return base;
  return resolveConfig({ ...raw, name: `${String(raw.name)}_kb${need}`, keyBits: need }, `preset ${preset}`);
}

/** How many inserts come before the queries, and whether inserts continue between them. */
function protocolOf(f: Filter): { protocol: 'window' | 'capacity'; inserts: number } {
  const w = f.window();
  const aging = f.aging();
  const n = f.capacity();
  // A filter that forgets without a window guarantee (GBF) states the window its figures are for.
  const stated = (f.config as { window?: unknown }).window;
  if ((w !== null && Number.isFinite(w)) || aging || (n === null && typeof stated === 'number')) {
    const span = w !== null && Number.isFinite(w) ? w : (n ?? (stated as number));
    return { protocol: 'window', inserts: Math.max(10 * span, aging?.run.ops ?? 0) };
  }
  if (n === null) throw new Error(`${f.name}: neither a window nor a capacity to size the run`);
  return { protocol: 'capacity', inserts: n };
}

/** One preset under one workload: inserts, then `queries` fresh queries (interleaved with inserts for a window). */
export function measure(
  preset: string,
  w: KeyWorkload,
  queries: number,
  keyMix: KeyMix,
): { f: Filter; queries: number; positives: number } {
  const f = filterFor(preset, w, keyMix);
  const { protocol, inserts } = protocolOf(f);
  const kb = f.config.keyBits;
  const ins = protocol === 'window' ? inserts + queries : inserts;
  const keys: bigint[] = new Array<bigint>(ins + queries);
  for (let i = 0; i < ins; i++) keys[i] = keyFor(w, i, kb, 0);
  for (let j = 0; j < queries; j++) keys[ins + j] = keyFor(w, j, kb, 1);
  const ops = f.software().fresh(keys);
  const insert = ops.insert ?? ops.testAndInsert;
  const query = ops.query;
  if (!insert || !query) throw new Error(`${f.name}: the software filter has no insert or query`);
  let positives = 0;
  if (protocol === 'window') {
    for (let i = 0; i < inserts; i++) insert(i);
    for (let j = 0; j < queries; j++) {
      insert(inserts + j);
      if (hitOf(query(ins + j))) positives++;
    }
  } else {
    for (let i = 0; i < inserts; i++) insert(i);
    for (let j = 0; j < queries; j++) if (hitOf(query(ins + j))) positives++;
  }
  return { f, queries, positives };
}

const analytics = new Map<string, number>();
/** The preset's analytic fp (the same with and without the key mix; some analyses take a while: computed once). */
function analyticFp(preset: string, f: Filter): number {
  let fp = analytics.get(preset);
  if (fp === undefined) analytics.set(preset, (fp = f.analyze().values.fp));
  return fp;
}

/** The one-sided z a difference must pass for `tests` comparisons to hold at 99 % together (Bonferroni). */
export function zThreshold(tests: number): number {
  return normalQuantile(1 - 0.01 / Math.max(1, tests));
}

export function structuredKeys(
  presets: readonly string[],
  queries: number,
  keyMix: KeyMix,
  progress?: (done: number) => void,
): PresetFp[] {
  const out: PresetFp[] = [];
  // Every structured workload of every preset is one comparison.
  const z99 = zThreshold(presets.length * STRUCTURED.length);
  for (const preset of presets) {
    let row: PresetFp | null = null;
    let random: WorkloadFp | null = null;
    for (const w of WORKLOADS) {
      const r = measure(preset, w, queries, keyMix);
      if (!row) {
        const analytic = analyticFp(preset, r.f);
        const { protocol, inserts } = protocolOf(r.f);
        row = {
          preset,
          family: r.f.family.id,
          filter: r.f.config.filter,
          keyMix,
          protocol,
          inserts,
          analytic,
          analyticHigh: analytic + z99 * Math.sqrt((analytic * (1 - analytic)) / queries),
          workloads: [],
        };
      }
      const fp = r.positives / r.queries;
      let z: number | null = null;
      if (random) {
        const se = Math.sqrt((random.fp * (1 - random.fp)) / random.queries + (fp * (1 - fp)) / r.queries);
        z = se > 0 ? (fp - random.fp) / se : fp > random.fp ? Infinity : 0;
      }
      const entry: WorkloadFp = {
        workload: w,
        keyBits: r.f.config.keyBits,
        queries: r.queries,
        positives: r.positives,
        fp,
        harmful: z !== null && z > z99 && fp > row.analyticHigh,
        zVsRandom: z,
      };
      if (w === 'random') random = entry;
      row.workloads.push(entry);
      progress?.(1);
    }
    out.push(row!);
  }
  return out;
}

const MIX_CHOICES = ['both', ...KEY_MIXES] as const;

export const structuredKeysExperiment: ExperimentDef = {
  name: 'structured-keys',
  description:
    'fp of every preset under structured keys (sequential, IPv4 5-tuples, Gray code, shared prefix) beside random keys and the analytic fp, with H3 alone and with the key mix',
  simEngine: false,
  options: [
    {
      name: 'presets',
      flags: '--presets <names>',
      description: 'structured-keys: comma-separated presets (default: every preset)',
      default: 'all',
    },
    {
      name: 'keyMix',
      flags: '--key-mix <m>',
      description: `structured-keys: ${MIX_CHOICES.join(' | ')} (the hashes' input: the key, or the key through the SPN mix)`,
      default: 'both',
    },
  ],
  run(o: ExperimentOptions): ExperimentResult {
    const all = presetNames();
    const asked = o.params.presets ?? 'all';
    const presets = asked === 'all' ? all : asked.split(',').map((s) => s.trim());
    for (const p of presets) if (!all.includes(p)) throw new UsageError(`--presets: no preset '${p}'`);
    const mixArg = o.params.keyMix ?? 'both';
    if (!(MIX_CHOICES as readonly string[]).includes(mixArg))
      throw new UsageError(`--key-mix: '${mixArg}' is not one of ${MIX_CHOICES.join(', ')}`);
    const mixes: KeyMix[] = mixArg === 'both' ? [...KEY_MIXES] : [mixArg as KeyMix];
    const queries = Math.max(1000, Math.round(50_000 * o.scale));
    let done = 0;
    const total = mixes.length * presets.length * WORKLOADS.length;
    const byMix = new Map<KeyMix, PresetFp[]>();
    for (const mix of mixes)
      byMix.set(
        mix,
        structuredKeys(presets, queries, mix, () => o.progress?.(++done, total)),
      );
    const series: Series[] = [];
    for (const [mix, rows] of byMix)
      for (const w of WORKLOADS)
        series.push({
          name: `${mix === 'none' ? 'H3' : 'mix+H3'} ${w}`,
          kind: 'measured',
          group: mix,
          points: rows.map((r) => ({ x: r.analytic, y: r.workloads.find((x) => x.workload === w)!.fp })),
        });
    const xs = [...byMix.values()][0]!.map((r) => r.analytic).filter((x) => x > 0);
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    series.push({
      name: 'measured = analytic',
      kind: 'analytic',
      group: 'analytic',
      points: [
        { x: lo, y: lo },
        { x: hi, y: hi },
      ],
    });
    const harmfulOf = (rows: PresetFp[]): string[] =>
      rows.flatMap((r) => r.workloads.filter((w) => w.harmful).map((w) => `${r.preset}/${w.workload}`));
    const checks: { what: string; ok: boolean }[] = [];
    const none = byMix.get('none');
    const spn = byMix.get('spn');
    if (none) {
      const h = harmfulOf(none);
      checks.push({
        what: `H3 alone: fp above both the analytic and the random-key 99 % bounds (Bonferroni over ${presets.length * STRUCTURED.length} cases) in ${h.length} cases${h.length ? `: ${h.join(', ')}` : ''} — the reason for the key mix`,
        ok: h.length > 0,
      });
    }
    if (spn) {
      const h = harmfulOf(spn);
      checks.push({
        what: `with the key mix: no structured workload above both bounds${h.length ? ` (found: ${h.join(', ')})` : ''}`,
        ok: h.length === 0,
      });
    }
    const cmd = [
      'npx bloomforge experiment structured-keys',
      asked === 'all' ? '' : ` --presets ${asked}`,
      mixArg === 'both' ? '' : ` --key-mix ${mixArg}`,
      o.scale === 1 ? '' : ` --scale ${o.scale}`,
    ].join('');
    return {
      name: 'structured-keys',
      title: 'False positives under structured keys: H3 alone and with the key mix',
      xLabel: 'analytic fp',
      yLabel: 'measured fp',
      logY: true,
      series,
      params: {
        queries,
        note: 'deterministic key sets (sim/verify/workloads.ts); --seed unused',
        rows: Object.fromEntries(byMix),
      },
      command: cmd,
      checks,
    };
  },
};
