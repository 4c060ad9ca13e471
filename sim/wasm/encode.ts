/**
 * Binary encoding of the WebAssembly cycle loop: the subset of opcodes it uses, expressions as
 * byte arrays that push one i32, a function body of i32 locals, and the module around it (one
 * imported memory, one exported function `run(n, writeOut) -> i32`).
 */
import { section, sleb, str, uleb, WASM_HEADER } from '../../src/util/wasmBytes.js';

export const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  select: 0x1b,
  get: 0x20,
  set: 0x21,
  load: 0x28,
  store: 0x36,
  const: 0x41,
  eqz: 0x45,
  eq: 0x46,
  ne: 0x47,
  ltU: 0x49,
  gtU: 0x4b,
  leU: 0x4d,
  geU: 0x4f,
  popcnt: 0x69,
  add: 0x6a,
  sub: 0x6b,
  mul: 0x6c,
  and: 0x71,
  or: 0x72,
  xor: 0x73,
  shl: 0x74,
  shrU: 0x76,
} as const;
/** The block type of a block, loop or if that leaves nothing on the stack. */
export const VOID = 0x40;
const I32 = 0x7f;

/** Code that pushes one i32. */
export type Ex = number[];
export const K = (c: number): Ex => [OP.const, ...sleb(c)];
export const bin = (op: number, a: Ex, b: Ex): Ex => [...a, ...b, op];
export const and = (a: Ex, b: Ex): Ex => bin(OP.and, a, b);
export const or = (a: Ex, b: Ex): Ex => bin(OP.or, a, b);
export const xor = (a: Ex, b: Ex): Ex => bin(OP.xor, a, b);
export const shl = (a: Ex, s: number): Ex => (s === 0 ? a : bin(OP.shl, a, K(s)));
export const shr = (a: Ex, s: number): Ex => (s === 0 ? a : bin(OP.shrU, a, K(s)));
export const mask = (a: Ex, m: number): Ex => ((m | 0) === -1 ? a : and(a, K(m)));
export const not = (a: Ex, m: number): Ex => mask(xor(a, K(-1)), m);
/** c ? t : f, branch-free (a conditional move). */
export const sel = (c: Ex, t: Ex, f: Ex): Ex => [...t, ...f, ...c, OP.select];
const memarg = (offset: number): number[] => [2, ...uleb(offset)];
export const load = (addr: Ex, offset: number): Ex => [...addr, OP.load, ...memarg(offset)];
export const store = (addr: Ex, value: Ex, offset: number): number[] => [
  ...addr,
  ...value,
  OP.store,
  ...memarg(offset),
];
export const orAll = (xs: Ex[]): Ex => xs.reduce((acc, x) => or(acc, x));
/** The opcode of a bitwise operator. */
export const BITWISE = { and: OP.and, or: OP.or, xor: OP.xor } as const;

/** A function body being written: its code and its i32 locals. */
export class Fn {
  readonly code: number[] = [];
  /** Parameters first (n, writeOut), then the declared locals. */
  private nLocals = 2;
  local(): number {
    return this.nLocals++;
  }
  get(l: number): Ex {
    return [OP.get, ...uleb(l)];
  }
  set(l: number, e: Ex): void {
    this.code.push(...e, OP.set, ...uleb(l));
  }
  emit(...bytes: number[]): void {
    for (const b of bytes) this.code.push(b);
  }
  body(): number[] {
    const locals = this.nLocals - 2;
    const decl = locals > 0 ? [1, ...uleb(locals), I32] : [0];
    const b = [...decl, ...this.code, OP.end];
    return [...uleb(b.length), ...b];
  }
}

/** The module of one function `run(n: i32, writeOut: i32) -> i32` importing its memory as env.mem. */
export function runModule(body: number[], pages: number): Uint8Array<ArrayBuffer> {
  const mod = [
    ...WASM_HEADER,
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]),
    ...section(2, [1, ...str('env'), ...str('mem'), 0x02, 0x00, ...uleb(pages)]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...str('run'), 0x00, 0]),
    ...section(10, [1, ...body]),
  ];
  return new Uint8Array(mod);
}
