/**
 * The small IR editor the control port (./control.ts) builds with: a copy of a design's nets and
 * cells, new nets in the `ctl` scope, and one method per cell it adds.
 */
import type { Cell, Design, Net, NetId, SrcLoc } from '../ir/types.js';

/** A small editor over a design's nets and cells. */
export class Edit {
  readonly nets: Net[];
  readonly cells: Cell[];
  constructor(
    d: Design,
    private readonly loc: SrcLoc,
  ) {
    this.nets = d.nets.map((n) => ({ ...n }));
    this.cells = [...d.cells];
  }
  w(n: NetId): number {
    return this.nets[n]!.width;
  }
  net(width: number, name: string, named = false): NetId {
    const id = this.nets.length;
    this.nets.push({ id, width, name, named, loc: this.loc, scope: ['ctl'] });
    return id;
  }
  private add(c: Cell): void {
    this.cells.push(c);
  }
  k(value: bigint | number, width: number): NetId {
    const out = this.net(width, 'const');
    this.add({ kind: 'const', out, value: BigInt(value) & ((1n << BigInt(width)) - 1n), loc: this.loc });
    return out;
  }
  not(a: NetId): NetId {
    const out = this.net(this.w(a), 'not');
    this.add({ kind: 'not', a, out, loc: this.loc });
    return out;
  }
  bit(op: 'and' | 'or', a: NetId, b: NetId): NetId {
    const out = this.net(this.w(a), op);
    this.add({ kind: 'bitwise', op, a, b, out, loc: this.loc });
    return out;
  }
  and(...xs: NetId[]): NetId {
    return xs.reduce((a, b) => this.bit('and', a, b));
  }
  or(...xs: NetId[]): NetId {
    return xs.reduce((a, b) => this.bit('or', a, b));
  }
  eq(a: NetId, value: number): NetId {
    const out = this.net(1, 'eq');
    this.add({ kind: 'compare', op: 'eq', a, b: this.k(value, this.w(a)), out, loc: this.loc });
    return out;
  }
  cmp(op: 'ugt', a: NetId, b: NetId): NetId {
    const out = this.net(1, op);
    this.add({ kind: 'compare', op, a, b, out, loc: this.loc });
    return out;
  }
  dec(a: NetId): NetId {
    const out = this.net(this.w(a), 'sub');
    this.add({ kind: 'arith', op: 'sub', a, b: this.k(1, this.w(a)), out, loc: this.loc });
    return out;
  }
  mux(sel: NetId, whenTrue: NetId, whenFalse: NetId): NetId {
    const out = this.net(this.w(whenTrue), 'mux');
    this.add({ kind: 'mux', sel, whenTrue, whenFalse, out, loc: this.loc });
    return out;
  }
  slice(a: NetId, lo: number, width: number): NetId {
    if (lo === 0 && width === this.w(a)) return a;
    const out = this.net(width, 'slice');
    this.add({ kind: 'slice', a, lo, out, loc: this.loc });
    return out;
  }
  /** Low `width` bits of a, or a zero-extended to `width`. */
  fit(a: NetId, width: number): NetId {
    const wa = this.w(a);
    if (wa === width) return a;
    if (wa > width) return this.slice(a, 0, width);
    return this.cat(this.k(0, width - wa), a);
  }
  /** {parts[0], parts[1], …}: parts[0] in the top bits. */
  cat(...parts: NetId[]): NetId {
    if (parts.length === 1) return parts[0]!;
    const out = this.net(
      parts.reduce((s, p) => s + this.w(p), 0),
      'cat',
    );
    this.add({ kind: 'concat', parts, out, loc: this.loc });
    return out;
  }
  inc(a: NetId): NetId {
    const out = this.net(this.w(a), 'add');
    this.add({ kind: 'arith', op: 'add', a, b: this.k(1, this.w(a)), out, loc: this.loc });
    return out;
  }
  shr(a: NetId, amount: NetId): NetId {
    const out = this.net(this.w(a), 'shr');
    this.add({ kind: 'shift', op: 'shr', a, amount, out, loc: this.loc });
    return out;
  }
  reg(out: NetId, d: NetId, en: NetId | null, resetValue = 0n, rst: NetId | null = null): void {
    this.add({ kind: 'reg', d, out, en, rst, resetValue, loc: this.loc });
  }
  replace(i: number, c: Cell): void {
    this.cells[i] = c;
  }
  /** out = a + b (an existing net). */
  addArith(out: NetId, a: NetId, b: NetId): void {
    this.add({ kind: 'arith', op: 'add', a, b, out, loc: this.loc });
  }
  /** out = a − b (an existing net). */
  subArith(out: NetId, a: NetId, b: NetId): void {
    this.add({ kind: 'arith', op: 'sub', a, b, out, loc: this.loc });
  }
  /** Drive an existing net (one whose driver was moved) with a mux. */
  muxInto(out: NetId, sel: NetId, whenTrue: NetId, whenFalse: NetId): void {
    this.add({ kind: 'mux', sel, whenTrue, whenFalse, out, loc: this.loc });
  }
}
