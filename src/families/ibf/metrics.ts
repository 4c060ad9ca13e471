/**
 * The metrics of Boraskar §4 over a stream of arrivals, and the stream generator standing in for
 * the paper's data sets (§6.1).
 *
 * Every arrival is a membership query answered before the item is inserted (duplicate detection
 * on a stream, as for the SBF): a new item answered "seen" is a false positive, a duplicate
 * answered "not seen" a false negative. With imp the arrival's importance:
 * - wFP = Σ_{FP} imp (Eq. 5), wFN = Σ_{FN} imp (Eq. 6); as rates (the percentages of Tables 3
 *   and 4; the paper does not print its normalisation) wFP divided by the importance of all new
 *   arrivals and wFN by that of all duplicate arrivals;
 * - precision = (wTotal − wFP) / wTotal (Eq. 7), recall = (wTotal − wFP) / (wTotal − wFP + wFN)
 *   (Eq. 8), wTotal = Σ imp over the arrivals answered "seen";
 * - I_fp[i], I_fn[i] (Eqs. 9, 10): the FP rate among the new arrivals of importance i, the FN rate
 *   among the duplicate arrivals of importance i;
 * - crossover (Eq. 11): the least importance i at which the IBF's I_fn is below the SBF's.
 *
 * The generator (the web-crawl data set of §6.1.1 is not available): N arrivals over importances
 * 1..Z; an arrival is a duplicate with probability `dupRate` (§6.1.2: 70 %), a uniformly chosen
 * earlier item, otherwise a new item (ids 0, 1, 2, …) whose importance is drawn once from the
 * distribution: "linear" — uniform over 1..Z (Figure 2(b)) — or "exponential" — Pr[i] ∝
 * e^{−(i−1)/τ}, τ = Z/5, more items of low importance (Figure 2(c), shaped like the crawl's
 * Figure 2(a)). Seeded xorshift32; the first arrival is always new.
 */
import { fmix32 } from './schemes.js';

export interface Arrival {
  key: number;
  imp: number;
  dup: boolean;
}

export type Distribution = 'linear' | 'exponential';

export function generateStream(o: {
  N: number;
  Z: number;
  dupRate: number;
  distribution: Distribution;
  seed: number;
}): Arrival[] {
  let x = fmix32(o.seed ^ 0xda7a5e7) || 1;
  const rand = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
  const tau = o.Z / 5;
  const cdf: number[] = [];
  let acc = 0;
  for (let i = 1; i <= o.Z; i++) {
    acc += o.distribution === 'linear' ? 1 : Math.exp(-(i - 1) / tau);
    cdf.push(acc);
  }
  const drawImp = (): number => {
    const u = rand() * acc;
    let i = 0;
    while (i < cdf.length - 1 && cdf[i]! <= u) i++;
    return i + 1;
  };
  const imps: number[] = [];
  const out: Arrival[] = [];
  for (let t = 0; t < o.N; t++) {
    if (imps.length > 0 && rand() < o.dupRate) {
      const key = Math.floor(rand() * imps.length);
      out.push({ key, imp: imps[key]!, dup: true });
    } else {
      const imp = drawImp();
      out.push({ key: imps.length, imp, dup: false });
      imps.push(imp);
    }
  }
  return out;
}

export interface Metrics {
  arrivals: number;
  wFP: number;
  wFN: number;
  /** wFP and wFN as percentages (see the header). */
  wFPrate: number;
  wFNrate: number;
  fpRate: number;
  fnRate: number;
  precision: number;
  recall: number;
  /** I_fp[i], I_fn[i] for i = 1..Z at index i (NaN where no arrival had importance i). */
  Ifp: number[];
  Ifn: number[];
}

/** A filter the metrics run over: the answer before the insert, then the insert. */
export interface TestAndInsert {
  testAndInsert(key: number, imp: number): boolean;
}

export function measure(f: TestAndInsert, stream: readonly Arrival[], Z: number): Metrics {
  let wFP = 0;
  let wFN = 0;
  let wNew = 0;
  let wDup = 0;
  let wTotal = 0;
  let fp = 0;
  let fn = 0;
  let nNew = 0;
  let nDup = 0;
  const newBy = new Float64Array(Z + 1);
  const dupBy = new Float64Array(Z + 1);
  const fpBy = new Float64Array(Z + 1);
  const fnBy = new Float64Array(Z + 1);
  for (const a of stream) {
    const hit = f.testAndInsert(a.key, a.imp);
    if (hit) wTotal += a.imp;
    if (a.dup) {
      nDup++;
      wDup += a.imp;
      dupBy[a.imp]!++;
      if (!hit) {
        fn++;
        wFN += a.imp;
        fnBy[a.imp]!++;
      }
    } else {
      nNew++;
      wNew += a.imp;
      newBy[a.imp]!++;
      if (hit) {
        fp++;
        wFP += a.imp;
        fpBy[a.imp]!++;
      }
    }
  }
  const Ifp = Array.from({ length: Z + 1 }, (_, i) => (i === 0 || newBy[i] === 0 ? NaN : fpBy[i]! / newBy[i]!));
  const Ifn = Array.from({ length: Z + 1 }, (_, i) => (i === 0 || dupBy[i] === 0 ? NaN : fnBy[i]! / dupBy[i]!));
  return {
    arrivals: stream.length,
    wFP,
    wFN,
    wFPrate: wNew ? (100 * wFP) / wNew : 0,
    wFNrate: wDup ? (100 * wFN) / wDup : 0,
    fpRate: nNew ? fp / nNew : 0,
    fnRate: nDup ? fn / nDup : 0,
    precision: wTotal ? (wTotal - wFP) / wTotal : 1,
    recall: wTotal - wFP + wFN ? (wTotal - wFP) / (wTotal - wFP + wFN) : 1,
    Ifp,
    Ifn,
  };
}

/** Eq. 11: the least importance i (1..Z) with ibf.Ifn[i] < sbf.Ifn[i]; null if none. */
export function crossover(ibf: Metrics, sbf: Metrics): number | null {
  for (let i = 1; i < ibf.Ifn.length; i++) if (ibf.Ifn[i]! < sbf.Ifn[i]!) return i;
  return null;
}

/** Least-squares slope of y over x (NaN points skipped). */
export function slope(ys: readonly number[], from = 1): number {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = from; i < ys.length; i++) {
    const y = ys[i]!;
    if (Number.isNaN(y)) continue;
    n++;
    sx += i;
    sy += y;
    sxx += i * i;
    sxy += i * y;
  }
  return n < 2 ? NaN : (n * sxy - sx * sy) / (n * sxx - sx * sx);
}
