/**
 * Standard and inferential Generalized Bloom Filter analytics (Dautrich & Ravishankar §5.3): cell
 * probabilities (Eqs. 28–31), the likelihood of an observation (Eq. 32), the sliding-window
 * posterior as the direct sum of Eq. 9, as the paper's closed form (Eq. 34) and as the same
 * closed form without the q0/(q0+q1) ≈ 1/2 step, and the standard filter's hit probabilities.
 * All for a continuous stream (n → ∞), a time-invariant p_x and distinct insertions (the GBF
 * analysis uses i, not D(i): §5.3.2).
 *
 * Partitioned layout (the hardware's; see types.ts). One insert writes exactly one cell of each
 * bank, so a cell is left untouched by an insert with probability q_ε = 1 − K/m (K = k0 + k1 banks
 * of m/K cells) instead of (1 − 1/m)^K (Eq. 30), and it is written 0 with probability
 * k0/K (each bank resets for k0 of the K rotations) instead of q0/(q0+q1) (Eqs. 28, 29, Theorem 6).
 * An item's K cells never collide, so r0 = k0 and r1 = k1 always. Theorem 6 and Eq. 32 hold as
 * stated with these two numbers; with k0 = k1 the zero share is exactly 1/2, the step of §5.3.2
 * that the paper takes as an approximation, so Eq. 34 is then exact for the partitioned filter
 * (given the independence that Eq. 32 assumes).
 *
 * Numerics. Eq. 34 is an alternating sum: C^s_{d,e} grows like a binomial coefficient of
 * d + e ≤ 2k, and in double precision the posterior loses every digit from about k = 20 (the paper
 * reports values outside [0, 1] near k = 30). The closed forms here are summed in double-double
 * arithmetic (≈ 32 digits), which keeps them exact to double precision up to k = 30 and beyond.
 */

// ---- double-double arithmetic (Dekker, Knuth): a value is hi + lo with |lo| ≤ ulp(hi)/2 ----------

export interface DD {
  hi: number;
  lo: number;
}

const SPLITTER = 134217729; // 2^27 + 1

function twoSum(a: number, b: number): DD {
  const s = a + b;
  const bb = s - a;
  return { hi: s, lo: a - (s - bb) + (b - bb) };
}

function quick(a: number, b: number): DD {
  const s = a + b;
  return { hi: s, lo: b - (s - a) };
}

function twoProd(a: number, b: number): DD {
  const p = a * b;
  const ca = SPLITTER * a;
  const ah = ca - (ca - a);
  const al = a - ah;
  const cb = SPLITTER * b;
  const bh = cb - (cb - b);
  const bl = b - bh;
  return { hi: p, lo: ah * bh - p + ah * bl + al * bh + al * bl };
}

export const dd = {
  of: (x: number): DD => ({ hi: x, lo: 0 }),
  /** An exact integer (BigInt) as a double-double. */
  ofBig(x: bigint): DD {
    const hi = Number(x);
    return quick(hi, Number(x - BigInt(hi)));
  },
  add(a: DD, b: DD): DD {
    const s = twoSum(a.hi, b.hi);
    const t = twoSum(a.lo, b.lo);
    const u = quick(s.hi, s.lo + t.hi);
    return quick(u.hi, u.lo + t.lo);
  },
  neg: (a: DD): DD => ({ hi: -a.hi, lo: -a.lo }),
  sub: (a: DD, b: DD): DD => dd.add(a, dd.neg(b)),
  mul(a: DD, b: DD): DD {
    const p = twoProd(a.hi, b.hi);
    return quick(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
  },
  div(a: DD, b: DD): DD {
    const q1 = a.hi / b.hi;
    let r = dd.sub(a, dd.mul(dd.of(q1), b));
    const q2 = r.hi / b.hi;
    r = dd.sub(r, dd.mul(dd.of(q2), b));
    const q3 = r.hi / b.hi;
    return dd.add(quick(q1, q2), dd.of(q3));
  },
  /** a^n for an integer n ≥ 0 (square and multiply). */
  pow(a: DD, n: number): DD {
    let r = dd.of(1);
    let x = a;
    let e = n;
    while (e > 0) {
      if (e & 1) r = dd.mul(r, x);
      e = Math.floor(e / 2);
      if (e > 0) x = dd.mul(x, x);
    }
    return r;
  },
  value: (a: DD): number => a.hi + a.lo,
};

// ---- the filter's shape and its cell probabilities -------------------------------------------

export interface GbfShape {
  k0: number;
  k1: number;
  /** Cells in all. */
  m: number;
  layout: 'partitioned' | 'shared';
}

/** q_ε as a double-double: a cell is not touched by one insert (Eq. 30; partitioned 1 − K/m). */
export function qEpsDD(s: GbfShape): DD {
  const K = s.k0 + s.k1;
  if (s.layout === 'partitioned') return dd.sub(dd.of(1), dd.div(dd.of(K), dd.of(s.m)));
  return dd.pow(dd.sub(dd.of(1), dd.div(dd.of(1), dd.of(s.m))), K);
}

export function qEps(s: GbfShape): number {
  return dd.value(qEpsDD(s));
}

/** q0 and q1 (Eqs. 28, 29): a cell is written 0, or 1, by one insert. */
export function writeProbabilities(s: GbfShape): { q0: number; q1: number } {
  if (s.layout === 'partitioned') return { q0: s.k0 / s.m, q1: s.k1 / s.m };
  const u = 1 - 1 / s.m;
  return { q0: 1 - u ** s.k0, q1: (1 - u ** s.k1) * u ** s.k0 };
}

/** q0/(q0 + q1): the share of writes that leave a cell 0 (Theorem 6; partitioned k0/K exactly). */
export function zeroShare(s: GbfShape): number {
  if (s.layout === 'partitioned') return s.k0 / (s.k0 + s.k1);
  const { q0, q1 } = writeProbabilities(s);
  return q0 / (q0 + q1);
}

/** Theorem 6 (Eq. 31): a cell is 0 after i inserts, given it was 0 with probability φ0. */
export function f0(s: GbfShape, phi0: number, i: number): number {
  const t = qEps(s) ** i;
  return phi0 * t + zeroShare(s) * (1 - t);
}

/** What a query observes (Definition 13). */
export interface GbfObservation {
  c0: number;
  c1: number;
  r0: number;
  r1: number;
}

/** Eq. 32: P(R_x | I_x = i), the four kinds of cell taken as independent. */
export function likelihood(s: GbfShape, x: GbfObservation, i: number): number {
  const a = f0(s, 1, i);
  const b = f0(s, 0, i);
  return a ** x.c0 * (1 - a) ** (x.r0 - x.c0) * (1 - b) ** x.c1 * b ** (x.r1 - x.c1);
}

/**
 * Eq. 9 summed term by term with P(i) = p_x(1 − p_x)^i (Eq. 4) and Eq. 32: the definition the
 * closed forms are checked against. The tail is cut where (1 − p_x)^i < 1e−18.
 */
export function posteriorDirect(s: GbfShape, px: number, w: number, x: GbfObservation): number {
  const q = qEps(s);
  const alpha = zeroShare(s);
  const n = Math.ceil(Math.log(1e-18) / Math.log1p(-px));
  let num = 0;
  let den = 0;
  let pi = 1;
  let t = 1;
  for (let i = 0; i < n; i++) {
    const a = t + alpha * (1 - t); // f0(1, i)
    const b = alpha * (1 - t); // f0(0, i)
    const g = pi * a ** x.c0 * (1 - a) ** (x.r0 - x.c0) * (1 - b) ** x.c1 * b ** (x.r1 - x.c1);
    den += g;
    if (i < w) num += g;
    pi *= 1 - px;
    t *= q;
  }
  return num / den;
}

// ---- Eq. 34 ----------------------------------------------------------------------------------

/** Pascal's triangle, grown on demand: PASCAL[n][k] = (n choose k). */
const PASCAL: bigint[][] = [[1n]];

function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  while (PASCAL.length <= n) {
    const prev = PASCAL[PASCAL.length - 1]!;
    PASCAL.push(Array.from({ length: prev.length + 1 }, (_, i) => (i > 0 ? prev[i - 1]! : 0n) + (prev[i] ?? 0n)));
  }
  return PASCAL[n]![k]!;
}

const COEFFICIENTS = new Map<number, bigint[]>();

/** C^s_{d,e} = Σ_ℓ (d choose ℓ)(−1)^{s−ℓ}(e choose s−ℓ), s = 0..d+e: (1+t)^d (1−t)^e = Σ_s C^s t^s. */
export function coefficients(d: number, e: number): bigint[] {
  const key = d * 4096 + e;
  const known = COEFFICIENTS.get(key);
  if (known) return known;
  const out: bigint[] = [];
  for (let s = 0; s <= d + e; s++) {
    let c = 0n;
    for (let l = 0; l <= s; l++) c += binomial(d, l) * ((s - l) % 2 ? -1n : 1n) * binomial(e, s - l);
    out.push(c);
  }
  COEFFICIENTS.set(key, out);
  return out;
}

/**
 * Eq. 34 exactly as printed, in double precision: d = c0 + c1, e = r0 + r1 − d. Kept to show why
 * the double-double form is used (it leaves [0, 1] for large k, as §5.3.2 warns).
 */
export function posteriorEq34Double(d: number, e: number, px: number, w: number, qe: number): number {
  const C = coefficients(d, e).map(Number);
  let num = 0;
  let den = 0;
  C.forEach((c, s) => {
    const r = (1 - px) * qe ** s;
    num += (c * (1 - r ** w)) / (1 - r);
    den += c / (1 - r);
  });
  return num / den;
}

/**
 * Σ_s a_s (1 − r_s^w)/(1 − r_s) / Σ_s a_s/(1 − r_s) with r_s = (1 − p_x) q_ε^s: the sum of
 * Eq. 9 for a likelihood that is the polynomial Σ_s a_s (q_ε^i)^s (the derivation of Eq. 34),
 * in double-double. `w` = Infinity gives 1.
 */
export function geometricPosterior(a: readonly DD[], px: number, w: number, qe: DD): number {
  if (w === Infinity) return 1;
  const pbar = dd.sub(dd.of(1), dd.of(px));
  const pbarW = dd.pow(pbar, w);
  const qeW = dd.pow(qe, w);
  let qs = dd.of(1); // q_ε^s
  let qsW = dd.of(1); // q_ε^{s·w}
  let num = dd.of(0);
  let den = dd.of(0);
  for (let s = 0; s < a.length; s++) {
    const r = dd.mul(pbar, qs);
    const inv = dd.div(a[s]!, dd.sub(dd.of(1), r));
    den = dd.add(den, inv);
    num = dd.add(num, dd.mul(inv, dd.sub(dd.of(1), dd.mul(pbarW, qsW))));
    qs = dd.mul(qs, qe);
    qsW = dd.mul(qsW, qeW);
  }
  return Math.min(1, Math.max(0, dd.value(dd.div(num, den))));
}

/** Eq. 34 (q0/(q0+q1) = 1/2), summed in double-double. */
export function posteriorEq34(d: number, e: number, px: number, w: number, qe: DD): number {
  return geometricPosterior(coefficients(d, e).map(dd.ofBig), px, w, qe);
}

/** The coefficients of Σ_s a_s t^s = Π (c + u·t)^n over the factors [c, u, n]. */
function polynomial(factors: readonly [DD, DD, number][]): DD[] {
  let p: DD[] = [dd.of(1)];
  for (const [c, u, n] of factors) {
    for (let k = 0; k < n; k++) {
      const next: DD[] = Array.from({ length: p.length + 1 }, () => dd.of(0));
      p.forEach((v, s) => {
        next[s] = dd.add(next[s]!, dd.mul(v, c));
        next[s + 1] = dd.add(next[s + 1]!, dd.mul(v, u));
      });
      p = next;
    }
  }
  return p;
}

/**
 * P(I_x < w | R_x) for any zero share α (Eq. 32 in Eq. 9, summed like Eq. 34): with t = q_ε^i,
 * f0(1,i) = α + (1−α)t, 1 − f0(1,i) = (1−α)(1−t), 1 − f0(0,i) = (1−α) + αt, f0(0,i) = α(1−t), so
 * Eq. 32 is a polynomial in t of degree r0 + r1. With α = 1/2 its coefficients are
 * 2^−(r0+r1) C^s_{d,e} and this is Eq. 34.
 */
export function posterior(s: GbfShape, px: number, w: number, x: GbfObservation): number {
  const alpha = s.layout === 'partitioned' ? dd.div(dd.of(s.k0), dd.of(s.k0 + s.k1)) : dd.of(zeroShare(s));
  const one = dd.of(1);
  const beta = dd.sub(one, alpha);
  const a = polynomial([
    [alpha, beta, x.c0],
    [beta, dd.neg(beta), x.r0 - x.c0],
    [beta, alpha, x.c1],
    [alpha, dd.neg(alpha), x.r1 - x.c1],
  ]);
  return geometricPosterior(a, px, w, qEpsDD(s));
}

// ---- the standard GBF ---------------------------------------------------------------------------

/** P(Pos | I_x = i) on distinct insertions: every cell still as x left it (Eq. 32, c = r). */
export function hitProbability(s: GbfShape, i: number): number {
  const r0 = s.k0;
  const r1 = s.k1;
  return likelihood(s, { c0: r0, c1: r1, r0, r1 }, i);
}

/** P(Pos) for a key never inserted, n inserts after a clear (n = Infinity: steady state). */
export function freshHitProbability(s: GbfShape, n = Infinity): number {
  const z = n === Infinity ? zeroShare(s) : f0(s, 1, n);
  return z ** s.k0 * (1 - z) ** s.k1;
}

/**
 * Cells a software query reads when it stops at the first cell that differs (the k0 reset cells
 * first, then the k1 set cells), for a never-inserted key in steady state: the mean over all
 * such queries and the mean over those answered Neg.
 */
export function freshAccesses(s: GbfShape): { all: number; givenFalse: number } {
  const z = zeroShare(s);
  const match = [...Array<number>(s.k0).fill(z), ...Array<number>(s.k1).fill(1 - z)];
  let reach = 1; // P(the first j cells all match)
  let all = 0;
  let falseSum = 0;
  match.forEach((p, j) => {
    all += reach; // cell j is read when every earlier one matched
    falseSum += (j + 1) * reach * (1 - p); // the first mismatch is cell j
    reach *= p;
  });
  return { all, givenFalse: falseSum / (1 - reach) };
}

/** Banks up to which `sharedWriterExcess` sums over every subset of them (3^K terms). */
export const SHARED_WRITER_EXACT_BANKS = 12;

/**
 * The relative excess of a never-inserted key's P(Pos) in steady state over freshHitProbability's
 * (k0/K)^k0 (k1/K)^k1, with c cells per bank (partitioned layout). That value takes the key's K
 * cells as independent (as Eq. 32 does); they are not quite. Going back in time from the query,
 * each earlier item wrote each of the key's cells with probability 1/c, every bank independently,
 * and a cell holds what the latest item to write it wrote; when one item was the latest for
 * several of them, their roles come from its one rotation ρ and agree or disagree with the key's
 * together. With the key's rotation taken as 0 (the banks are alike up to rotation; ρ uniform)
 * and M(A) the probability that a random rotation gives every bank of A the key's role, P(Pos) is
 * F(every bank), where
 *   F(∅) = 1,  F(U) = Σ_{∅≠A⊆U} p^|A| (1−p)^(|U|−|A|) / (1 − (1−p)^|U|) · M(A) · F(U∖A),  p = 1/c
 * (the next item back that wrote a cell of U, the cells not yet settled, wrote exactly A of
 * them). Summed exactly up to SHARED_WRITER_EXACT_BANKS banks; above, to first order in 1/c:
 * pairs of cells only, a pair having one last writer with probability 1/(2c − 1), so
 *   Σ_{i<j} (M({i,j}) / (M({i}) M({j})) − 1) / (2c − 1)
 * (k0 = k1 = 4: 0.2581 against the exact 0.2749 at c = 16, 0.0630 against 0.0640 at c = 64).
 * The excess is of order K²/c: 0.1 % for k0 = k1 = 4 with 4096 cells per bank, 6.4 % with 64
 * (computed; test/families/gbf/lanes.test.ts measures k0 = k1 = 3 at c = 16 against it).
 */
export function sharedWriterExcess(k0: number, k1: number, cellsPerBank: number): number {
  const K = k0 + k1;
  const p = 1 / cellsPerBank;
  // Bank j has the key's role (rotation 0) under rotation r.
  const agrees = (j: number, r: number): boolean => (j - r + K) % K < k0 === j < k0;
  const single = (j: number): number => (j < k0 ? k0 : k1) / K;
  if (K > SHARED_WRITER_EXACT_BANKS) {
    let s = 0;
    for (let i = 0; i < K; i++)
      for (let j = i + 1; j < K; j++) {
        let both = 0;
        for (let r = 0; r < K; r++) if (agrees(i, r) && agrees(j, r)) both++;
        s += both / K / (single(i) * single(j)) - 1;
      }
    return s / (2 * cellsPerBank - 1);
  }
  const full = (1 << K) - 1;
  // The banks agreeing under each rotation, as a mask, and M(A) for every subset A.
  const agreeMask = Array.from({ length: K }, (_, r) => {
    let mask = 0;
    for (let j = 0; j < K; j++) if (agrees(j, r)) mask |= 1 << j;
    return mask;
  });
  const M = new Float64Array(full + 1);
  const size = new Uint8Array(full + 1);
  for (let A = 1; A <= full; A++) {
    size[A] = size[A >> 1]! + (A & 1);
    let n = 0;
    for (const mask of agreeMask) if ((A & ~mask) === 0) n++;
    M[A] = n / K;
  }
  // weight[n][a]: the next item back wrote a given a of n open cells and no other, given it wrote one.
  const weight = Array.from({ length: K + 1 }, (_, n) =>
    Array.from({ length: n + 1 }, (_, a) => (p ** a * (1 - p) ** (n - a)) / (1 - (1 - p) ** n)),
  );
  const F = new Float64Array(full + 1);
  F[0] = 1;
  // U ∖ A < U: every F it needs is done.
  for (let U = 1; U <= full; U++) {
    const w = weight[size[U]!]!;
    let s = 0;
    for (let A = U; A; A = (A - 1) & U) s += w[size[A]!]! * M[A]! * F[U ^ A]!;
    F[U] = s;
  }
  return F[full]! / ((k0 / K) ** k0 * (k1 / K) ** k1) - 1;
}
