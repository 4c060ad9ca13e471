/** Rewrite every net id a cell mentions (used when nets are merged or renumbered). */
import type { Cell, NetId } from './types.js';

export function remapCell(c: Cell, f: (n: NetId) => NetId): Cell {
  switch (c.kind) {
    case 'const':
      return { ...c, out: f(c.out) };
    case 'not':
    case 'slice':
    case 'reduce':
      return { ...c, a: f(c.a), out: f(c.out) };
    case 'bitwise':
    case 'arith':
    case 'compare':
      return { ...c, a: f(c.a), b: f(c.b), out: f(c.out) };
    case 'shift':
      return { ...c, a: f(c.a), amount: f(c.amount), out: f(c.out) };
    case 'mux':
      return { ...c, sel: f(c.sel), whenTrue: f(c.whenTrue), whenFalse: f(c.whenFalse), out: f(c.out) };
    case 'concat':
      return { ...c, parts: c.parts.map(f), out: f(c.out) };
    case 'reg':
      return {
        ...c,
        d: f(c.d),
        out: f(c.out),
        en: c.en === null ? null : f(c.en),
        rst: c.rst === null ? null : f(c.rst),
      };
    case 'memory':
      return {
        ...c,
        rdAddr: f(c.rdAddr),
        rdEn: f(c.rdEn),
        rdData: f(c.rdData),
        wrAddr: f(c.wrAddr),
        wrEn: f(c.wrEn),
        wrData: f(c.wrData),
        wrMask: c.wrMask === null ? null : f(c.wrMask),
      };
    case 'h3':
      return { ...c, key: f(c.key), out: f(c.out) };
  }
}
