/** Check: every cell's operand and result widths agree with the cell kind's rules. */
import { DesignError } from '../errors.js';
import { addrWidth, assertNever, type Cell, type Design } from '../types.js';

export function checkWidths(d: Design): Design {
  const w = (n: number): number => d.nets[n]!.width;
  const name = (n: number): string => `'${d.nets[n]!.name}'`;
  const fail = (c: Cell, msg: string): never => {
    throw new DesignError(d.name, `width mismatch in ${c.kind}: ${msg}`, c.loc);
  };
  const same = (c: Cell, ...nets: number[]): void => {
    const w0 = w(nets[0]!);
    for (const n of nets) if (w(n) !== w0) fail(c, `${name(n)} is ${w(n)} bits, ${name(nets[0]!)} is ${w0} bits`);
  };
  const one = (c: Cell, n: number, what: string): void => {
    if (w(n) !== 1) fail(c, `${what} ${name(n)} must be 1 bit, is ${w(n)}`);
  };
  for (const c of d.cells) {
    switch (c.kind) {
      case 'const':
        if (c.value < 0n || c.value >> BigInt(w(c.out)) !== 0n) fail(c, `value ${c.value} exceeds ${w(c.out)} bits`);
        break;
      case 'not':
        same(c, c.a, c.out);
        break;
      case 'bitwise':
      case 'arith':
        same(c, c.a, c.b, c.out);
        break;
      case 'compare':
        same(c, c.a, c.b);
        one(c, c.out, 'result');
        break;
      case 'shift':
        same(c, c.a, c.out);
        break;
      case 'mux':
        one(c, c.sel, 'select');
        same(c, c.whenTrue, c.whenFalse, c.out);
        break;
      case 'concat': {
        const sum = c.parts.reduce((s, p) => s + w(p), 0);
        if (sum !== w(c.out)) fail(c, `parts add up to ${sum} bits, result ${name(c.out)} is ${w(c.out)}`);
        break;
      }
      case 'slice':
        if (c.lo < 0 || c.lo + w(c.out) > w(c.a)) fail(c, `bits ${c.lo}+${w(c.out)} exceed ${name(c.a)}`);
        break;
      case 'reduce':
        one(c, c.out, 'result');
        break;
      case 'reg':
        same(c, c.d, c.out);
        if (c.en !== null) one(c, c.en, 'enable');
        if (c.rst !== null) one(c, c.rst, 'reset');
        break;
      case 'memory': {
        const aw = addrWidth(c.depth);
        if (c.depth < 2 || (c.depth & (c.depth - 1)) !== 0) {
          throw new DesignError(d.name, `memory '${c.name}': depth ${c.depth} is not a power of two >= 2`, c.loc);
        }
        if (c.width < 1) throw new DesignError(d.name, `memory '${c.name}': width ${c.width} < 1`, c.loc);
        if (w(c.rdAddr) !== aw || w(c.wrAddr) !== aw) fail(c, `memory '${c.name}' addresses must be ${aw} bits`);
        one(c, c.rdEn, 'read enable');
        one(c, c.wrEn, 'write enable');
        if (w(c.wrData) !== c.width || w(c.rdData) !== c.width)
          fail(c, `memory '${c.name}' data must be ${c.width} bits`);
        if (c.wrMask !== null && w(c.wrMask) !== c.width) {
          fail(c, `memory '${c.name}' mask ${name(c.wrMask)} must be ${c.width} bits, is ${w(c.wrMask)}`);
        }
        break;
      }
      case 'h3':
        if (c.rows.length !== w(c.out)) fail(c, `${c.rows.length} matrix rows for a ${w(c.out)}-bit output`);
        if (w(c.out) > 32) fail(c, `h3 output ${name(c.out)} is wider than 32 bits`);
        break;
      default:
        assertNever(c);
    }
  }
  return d;
}
