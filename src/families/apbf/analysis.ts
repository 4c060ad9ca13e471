/**
 * APBF/APBBF analytics (Shtul, Baquero, Almeida §5.2–§5.4, §6).
 *
 * All functions take a vector of per-segment match probabilities r_0..r_{k+l-1} (for a plain
 * APBF, the slice fill ratios), so the same recursions serve:
 * - the paper's idealised state just before a shift, r = [1/2k, 2/2k, ..., k/2k, 1/2, ..., 1/2]
 *   (what Table 2 prints), and
 * - the state a concrete config really reaches just before a shift: segment i has taken
 *   j = min(i+1, k) generations of g inserts, so r_i = 1 - (1 - 1/m)^(j·g) for a slice, or the
 *   blocked segment rate below for APBBF.
 */

/** Half-fill load of a block: elements per block when each of its parts of B/b bits is half set. */
export function halfFillLoad(blockBits: number, bitsPerBlock: number): number {
  return Math.LN2 / -Math.log1p(-bitsPerBlock / blockBits);
}

/** The paper's idealised fill ratios just before a shift. */
export function idealFillRatios(k: number, l: number): number[] {
  return Array.from({ length: k + l }, (_, i) => (i < k ? (i + 1) / (2 * k) : 0.5));
}

/**
 * Match probability of a never-inserted key in a segment that has taken n inserts: a slice of m
 * bits (B = b = 1), or a blocked segment of m/B blocks of B bits, each a partitioned filter of b
 * parts: the block's load N is Binomial(n, B/m) (Poisson for large m) and a part holding N
 * random bits out of B/b is set at a given offset with probability 1 - (1 - b/B)^N.
 */
export function segmentRate(n: number, m: number, B = 1, b = 1): number {
  if (B === 1) return 1 - (1 - 1 / m) ** n;
  const lambda = (n * B) / m;
  let p = Math.exp(-lambda); // P(N = 0)
  let sum = 0;
  for (let N = 0; N < 10 * lambda + 50; N++) {
    if (N > 0) p *= lambda / N;
    sum += p * (1 - (1 - b / B) ** N) ** b;
  }
  return sum;
}

/** Match probabilities just before a shift for a concrete config. */
export function realFillRatios(k: number, l: number, m: number, g: number, B = 1, b = 1): number[] {
  return Array.from({ length: k + l }, (_, i) => segmentRate(Math.min(i + 1, k) * g, m, B, b));
}

/**
 * The false-positive rate just before a shift of the filter split into `shards` shards by a hash
 * of the key (src/lanes/), each segment of a shard m/S bits. A query meets one shard, and that
 * shard took G_j ~ Binomial(g, 1/S) of generation j's inserts (j = 0 the current one), independent
 * across generations; segment i (age i) holds the generations it was among the k newest in,
 * N_i = G_max(0, i−k+1) + … + G_i, so its match probability is segmentRate(N_i, m/S, B, b). The
 * rate is the mean of falsePositiveRate over the G's: a shard's segments vary around the same
 * mean fill, and the rate is convex in the fill, so it lies above the one-shard rate by an amount
 * that grows with S/g. Estimated over `samples` draws of the G's from a seeded generator
 * (deterministic); S = 1 is the exact one-shard rate.
 */
export function shardedFalsePositiveRate(
  c: { k: number; l: number; m: number; g: number; B?: number; b?: number },
  shards: number,
  samples = 20_000,
  seed = 1,
): number {
  const { k, l, m, g } = c;
  const B = c.B ?? 1;
  const b = c.b ?? 1;
  if (shards === 1) return falsePositiveRate(realFillRatios(k, l, m, g, B, b), k, l);
  // CDF of Binomial(g, 1/S), for sampling by inversion.
  const p = 1 / shards;
  const cdf = new Float64Array(g + 1);
  let pmf = (1 - p) ** g;
  let acc = 0;
  for (let n = 0; n <= g; n++) {
    acc += pmf;
    cdf[n] = acc;
    pmf *= ((g - n) / (n + 1)) * (p / (1 - p));
  }
  const draw = (u: number): number => {
    let lo = 0;
    let hi = g;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! >= u * acc) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const ms = m / shards;
  const rate = new Map<number, number>();
  const G = new Int32Array(k + l);
  const r = new Float64Array(k + l);
  // xorshift32: a fixed sequence of uniforms for the draws.
  let x = (seed * 0x9e3779b1) >>> 0 || 1;
  const uniform = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return (x + 0.5) / 4294967296;
  };
  let sum = 0;
  for (let t = 0; t < samples; t++) {
    for (let j = 0; j < k + l; j++) G[j] = draw(uniform());
    for (let i = 0; i < k + l; i++) {
      let n = 0;
      for (let j = Math.max(0, i - k + 1); j <= i; j++) n += G[j]!;
      let v = rate.get(n);
      if (v === undefined) rate.set(n, (v = segmentRate(n, ms, B, b)));
      r[i] = v;
    }
    sum += falsePositiveRate(r, k, l);
  }
  return sum / samples;
}

/** §5.3: F(k, l, a, i), the probability of completing k consecutive matches from slice i. */
export function falsePositiveRate(r: ArrayLike<number>, k: number, l: number): number {
  // Bottom-up over i (from the end) of the recursion; F(a, i) for a = 0..k.
  //   F(k, ·) = 1;  F(a, i) = 0 when i > l + a;  else r_i F(a+1, i+1) + (1 − r_i) F(0, i+1).
  let next = new Float64Array(k + 1); // F(·, i + 1)
  let cur = new Float64Array(k + 1);
  for (let i = k + l; i >= 0; i--) {
    cur[k] = 1;
    for (let a = 0; a < k; a++) {
      cur[a] = i > l + a ? 0 : r[i]! * next[a + 1]! + (1 - r[i]!) * next[0]!;
    }
    [next, cur] = [cur, next];
  }
  return next[0]!;
}

/**
 * Expected segment reads of Algorithm 1 (§5.4) given per-segment match probabilities q, split by
 * outcome: E[accesses · 1{true}], E[accesses · 1{false}] and P(true). The paper's A recursion is
 * the false part; the same walk gives the true part (window elements, false positives).
 */
export function queryAccesses(
  q: readonly number[],
  k: number,
  l: number,
): { accTrue: number; accFalse: number; pTrue: number } {
  const memo = new Map<string, [number, number, number, number]>();
  // Returns [P(true), P(false), E[remaining accesses·1{true}], E[remaining accesses·1{false}]].
  const walk = (p: number, c: number, i: number): [number, number, number, number] => {
    if (i < 0) return [0, 1, 0, 0];
    if (p + c === k) return [1, 0, 0, 0];
    const key = `${p},${c},${i}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const qi = q[i]!;
    const [t1, f1, at1, af1] = walk(p, c + 1, i + 1);
    const [t0, f0, at0, af0] = walk(c, 0, i - k);
    const pt = qi * t1 + (1 - qi) * t0;
    const pf = qi * f1 + (1 - qi) * f0;
    // This read counts once on every path through it.
    const v: [number, number, number, number] = [
      pt,
      pf,
      pt + qi * at1 + (1 - qi) * at0,
      pf + qi * af1 + (1 - qi) * af0,
    ];
    memo.set(key, v);
    return v;
  };
  const [pTrue, , accTrue, accFalse] = walk(0, 0, l);
  return { accTrue, accFalse, pTrue };
}

/** Mean reads of a query that returns false (Table 2 "false"): A(k,l,0,0,0,l)/(1 - F). */
export function accessesFalse(r: readonly number[], k: number, l: number): number {
  const a = queryAccesses(r, k, l);
  return a.accFalse / (1 - a.pTrue);
}

/** Mean reads of a false positive (Table 2 "fp"). */
export function accessesFalsePositive(r: readonly number[], k: number, l: number): number {
  const a = queryAccesses(r, k, l);
  return a.accTrue / a.pTrue;
}

/**
 * Mean reads of a query for an element in the window (Table 2 "window"), just before a shift:
 * the window holds l generations; an element of age a (0..l-1 generations) matches for certain
 * in segments a..a+k-1 and elsewhere with the background probability r_i. Averaged over ages.
 */
export function accessesWindow(r: readonly number[], k: number, l: number): number {
  let sum = 0;
  for (let age = 0; age < l; age++) {
    const q = r.map((ri, i) => (i >= age && i < age + k ? 1 : ri));
    sum += queryAccesses(q, k, l).accTrue;
  }
  return sum / l;
}

/** §5.2: peak normalised probability-weighted slack, (sum_{i<k} 2^-i) / l. */
export function peakNpws(k: number, l: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += 2 ** -i;
  return s / l;
}

/** Peak NPWS with a general full-segment rate r (r = 1/2 for APBF): Σ_{i<k} r^i / l. */
export function peakNpwsRate(k: number, l: number, fullRate: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += fullRate ** i;
  return s / l;
}

/** §5.5: space efficiency of an APBF (ka, l) relative to a Bloom filter of kb slices. */
export function spaceEfficiency(kb: number, ka: number, l: number): number {
  return (kb / ka) * (l / (ka + l));
}
