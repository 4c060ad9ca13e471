/** The number of set bits of a non-negative integer below 2^32. */
export function popcount(x: number): number {
  let v = x >>> 0;
  let n = 0;
  while (v) {
    v &= v - 1;
    n++;
  }
  return n;
}
