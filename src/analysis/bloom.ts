/**
 * Classic and partitioned Bloom filter analytics (Shtul et al. §4, Table 1): fill ratio, false
 * positives, number of slices/hashes, bits per item, expected accesses of a query.
 */

/** §4.1: fill ratio of a slice of m bits after n insertions, 1 − (1 − 1/m)^n. */
export function fillRatio(m: number, n: number): number {
  return -Math.expm1(n * Math.log1p(-1 / m));
}

/** §4.1: k = ⌈log2(1/p)⌉ slices for a target false-positive rate p at fill ratio 1/2. */
export function slicesFor(p: number): number {
  return Math.ceil(Math.log2(1 / p) - 1e-12);
}

/** False positives of a partitioned filter at fill ratio r with k slices: r^k. */
export function partitionedFp(r: number, k: number): number {
  return r ** k;
}

/** Bits per item when filling to 1/2: k/ln 2 (m = n/ln 2 per slice). */
export function bitsPerItem(k: number): number {
  return k / Math.LN2;
}

/** §4.2: mean accesses of a query that returns false at fill 1/2: 2^k/(2^k − 1) Σ_{i=1..k} i/2^i. */
export function accessesFalseBloom(k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += i / 2 ** i;
  return (2 ** k / (2 ** k - 1)) * s;
}

export interface Table1Row {
  aimedFp: number;
  k: number;
  bitsPerItem: number;
  actualFp: number;
  accessesTrue: number;
  accessesFalse: number;
}

/** Table 1 of the paper, computed. */
export function table1(aimed = [0.1, 0.01, 0.001, 0.0001, 0.00001]): Table1Row[] {
  return aimed.map((p) => {
    const k = slicesFor(p);
    return {
      aimedFp: p,
      k,
      bitsPerItem: bitsPerItem(k),
      actualFp: 0.5 ** k,
      accessesTrue: k,
      accessesFalse: accessesFalseBloom(k),
    };
  });
}
