/** Statistics the families and the experiments share. */

/** The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628274631,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number): number =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13 here). */
export function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Σ_N Binom(n, q)(N)·f(N) over the range that carries the mass (40 standard deviations). */
export function binomialExpectation(n: number, q: number, f: (N: number) => number): number {
  if (n === 0) return f(0);
  if (q >= 1) return f(n);
  const mu = n * q;
  const sd = Math.sqrt(n * q * (1 - q));
  const lo = Math.max(0, Math.floor(mu - 40 * sd - 10));
  const hi = Math.min(n, Math.ceil(mu + 40 * sd + 10));
  const lnq = Math.log(q);
  const ln1q = Math.log1p(-q);
  const lnN = lnGamma(n + 1);
  let s = 0;
  for (let N = lo; N <= hi; N++) {
    const lp = lnN - lnGamma(N + 1) - lnGamma(n - N + 1) + N * lnq + (n - N) * ln1q;
    s += Math.exp(lp) * f(N);
  }
  return s;
}
