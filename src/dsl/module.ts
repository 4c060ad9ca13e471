/**
 * The DSL: describe a synchronous module in TypeScript and lower it to the IR.
 *
 *   const m = new ModuleBuilder('counter');
 *   const en = m.input('en', 1);
 *   const count = m.reg('count', 8);            // reset to 0 by the implicit `rst` input
 *   count.next(m.mux(en, count.add(1), count));
 *   m.output('count', count);
 *   const design = m.build();                   // checked IR, or a DesignError
 *
 * Width rules are strict (no implicit extension): both operands of a binary operator have the
 * same width; a plain number or bigint operand becomes a constant of the other operand's width.
 * Errors are thrown at the DSL call that caused them and name the signal and source line.
 * Hierarchy is by flattening: `m.scope(name, fn)` prefixes the names created inside `fn`.
 */
import { DesignError, formatLoc } from '../ir/errors.js';
import { h3Matrix } from '../ir/h3.js';
import { captureLoc } from '../ir/srcloc.js';
import { runPasses } from '../ir/passes/index.js';
import { KEYWORDS } from '../ir/passes/nameNets.js';
import { remapCell } from '../ir/remap.js';
import {
  addrWidth,
  type ArithOp,
  type BitwiseOp,
  type Cell,
  type CompareOp,
  type Design,
  type NetId,
  type Port,
  type ReduceOp,
  type ShiftOp,
  type SrcLoc,
} from '../ir/types.js';

export const MAX_WIDTH = 4096;

export type Operand = Sig | number | bigint;

interface NetInfo {
  width: number;
  name: string;
  named: boolean;
  loc: SrcLoc;
  /** How the net gets its value. */
  driver: 'input' | 'cell' | 'wire' | 'reg';
  /** The scopes it was made in. */
  scope: readonly string[];
}

interface WireInfo {
  source: Sig | null;
  assignedAt: SrcLoc | null;
}

/** A value in the design: a net of a fixed width. Operators build new cells. */
export class Sig {
  constructor(
    readonly m: ModuleBuilder,
    readonly net: NetId,
    readonly width: number,
  ) {}

  get name(): string {
    return this.m.netName(this.net);
  }

  and(b: Operand): Sig {
    return this.m.bitwise('and', this, b);
  }
  or(b: Operand): Sig {
    return this.m.bitwise('or', this, b);
  }
  xor(b: Operand): Sig {
    return this.m.bitwise('xor', this, b);
  }
  not(): Sig {
    return this.m.unary(this);
  }
  add(b: Operand): Sig {
    return this.m.arith('add', this, b);
  }
  sub(b: Operand): Sig {
    return this.m.arith('sub', this, b);
  }
  eq(b: Operand): Sig {
    return this.m.compare('eq', this, b);
  }
  ne(b: Operand): Sig {
    return this.m.compare('ne', this, b);
  }
  lt(b: Operand): Sig {
    return this.m.compare('ult', this, b);
  }
  le(b: Operand): Sig {
    return this.m.compare('ule', this, b);
  }
  gt(b: Operand): Sig {
    return this.m.compare('ugt', this, b);
  }
  ge(b: Operand): Sig {
    return this.m.compare('uge', this, b);
  }
  shl(amount: Operand): Sig {
    return this.m.shift('shl', this, amount);
  }
  shr(amount: Operand): Sig {
    return this.m.shift('shr', this, amount);
  }
  /** Bits hi..lo inclusive (Verilog order). */
  slice(hi: number, lo: number): Sig {
    return this.m.slice(this, hi, lo);
  }
  bit(i: number): Sig {
    return this.m.slice(this, i, i);
  }
  /** Zero-extend to `width` bits (must not be narrower). */
  zext(width: number): Sig {
    return this.m.zext(this, width);
  }
  /** Keep the low `width` bits. */
  trunc(width: number): Sig {
    return width === this.width ? this : this.m.slice(this, width - 1, 0);
  }
  /** 1 when any bit is set. */
  any(): Sig {
    return this.m.reduce('or', this);
  }
  /** 1 when every bit is set. */
  all(): Sig {
    return this.m.reduce('and', this);
  }
  parity(): Sig {
    return this.m.reduce('xor', this);
  }
}

/** A net declared now and driven later with `assign` (for forward references). */
export class Wire extends Sig {
  assign(src: Operand): void {
    this.m.assignWire(this, src);
  }
}

/** A register; its next value is given once with `next`. */
export class Reg extends Sig {
  next(d: Operand): void {
    this.m.setRegNext(this, d);
  }
}

export interface MemoryOptions {
  width: number;
  depth: number;
  /** Per-bit write mask port. Default false. */
  mask?: boolean;
  /** See MemoryCell in src/ir/types.ts. Default 'old'. */
  readDuringWrite?: 'old' | 'undefined';
  /** Contents at power-up (word i = init[i], the rest zero). Default all zero. */
  init?: readonly bigint[] | null;
}

/** A block RAM with one read port and one write port, each used exactly once. */
export class Memory {
  private rd: { addr: Sig; en: Sig; data: NetId; loc: SrcLoc } | null = null;
  private wr: { addr: Sig; data: Sig; en: Sig; mask: Sig | null; loc: SrcLoc } | null = null;
  readonly loc: SrcLoc;

  constructor(
    private readonly m: ModuleBuilder,
    readonly name: string,
    readonly opts: Required<MemoryOptions>,
  ) {
    this.loc = captureLoc();
  }

  get addrWidth(): number {
    return addrWidth(this.opts.depth);
  }

  /** Synchronous read: the returned signal holds mem[addr] one cycle after `en` was high. */
  read(addr: Operand, en: Operand = 1): Sig {
    const loc = captureLoc();
    if (this.rd) {
      throw this.m.error(
        `memory '${this.name}' has one read port; read() called again (first read at ${formatLoc(this.rd.loc)})`,
        loc,
      );
    }
    const a = this.m.operand(addr, this.addrWidth, `address of memory '${this.name}' read`, loc);
    const e = this.m.operand(en, 1, `read enable of memory '${this.name}'`, loc);
    const data = this.m.newNet(this.opts.width, `${this.name}_rdata`, true, loc, 'cell');
    this.rd = { addr: a, en: e, data, loc };
    return new Sig(this.m, data, this.opts.width);
  }

  /** Write `data` (bits selected by `mask`, when the memory has a mask port) at `addr` when `en`. */
  write(addr: Operand, data: Operand, en: Operand = 1, mask?: Operand): void {
    const loc = captureLoc();
    if (this.wr) {
      throw this.m.error(
        `memory '${this.name}' has one write port; write() called again (first write at ${formatLoc(this.wr.loc)})`,
        loc,
      );
    }
    if (this.opts.mask && mask === undefined) {
      throw this.m.error(`memory '${this.name}' was declared with mask: true; write() needs a mask`, loc);
    }
    if (!this.opts.mask && mask !== undefined) {
      throw this.m.error(`memory '${this.name}' has no mask port (declare it with mask: true)`, loc);
    }
    this.wr = {
      addr: this.m.operand(addr, this.addrWidth, `address of memory '${this.name}' write`, loc),
      data: this.m.operand(data, this.opts.width, `write data of memory '${this.name}'`, loc),
      en: this.m.operand(en, 1, `write enable of memory '${this.name}'`, loc),
      mask:
        mask === undefined ? null : this.m.operand(mask, this.opts.width, `write mask of memory '${this.name}'`, loc),
      loc,
    };
  }

  /** Lower to a cell (called by build). */
  toCell(): Cell {
    if (!this.rd) throw this.m.error(`memory '${this.name}' is never read (call read())`, this.loc);
    if (!this.wr) throw this.m.error(`memory '${this.name}' is never written (call write())`, this.loc);
    return {
      kind: 'memory',
      name: this.name,
      width: this.opts.width,
      depth: this.opts.depth,
      rdAddr: this.rd.addr.net,
      rdEn: this.rd.en.net,
      rdData: this.rd.data,
      wrAddr: this.wr.addr.net,
      wrEn: this.wr.en.net,
      wrData: this.wr.data.net,
      wrMask: this.wr.mask ? this.wr.mask.net : null,
      readDuringWrite: this.opts.readDuringWrite,
      init: this.opts.init,
      loc: this.loc,
    };
  }
}

export interface RegOptions {
  /** Value on reset and at power-up. `null`: no reset (power-up value 0). Default 0. */
  reset?: number | bigint | null;
  /** Enable: the register keeps its value while this is 0. */
  en?: Operand;
}

export class ModuleBuilder {
  private readonly nets: NetInfo[] = [];
  private readonly cells: Cell[] = [];
  private readonly wires = new Map<NetId, WireInfo>();
  private readonly regs: { reg: Reg; d: Sig | null; en: Sig | null; rst: boolean; resetValue: bigint; loc: SrcLoc }[] =
    [];
  private readonly memories: Memory[] = [];
  private readonly inputs: Port[] = [];
  private readonly outputs: Port[] = [];
  private readonly names = new Map<string, SrcLoc>();
  private readonly scopes: string[] = [];
  private rstSig: Sig | null = null;
  private built = false;
  readonly meta: Record<string, unknown> = {};

  /** The clock's name (`clk` unless given). */
  readonly clock: string;

  constructor(
    readonly name: string,
    opts: { clock?: string } = {},
  ) {
    this.clock = opts.clock ?? 'clk';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.clock) || (KEYWORDS.has(this.clock) && this.clock !== 'clk')) {
      throw new DesignError(name, `clock name '${this.clock}' is not a legal identifier`, captureLoc());
    }
    if (this.clock !== 'clk') this.names.set(this.clock, captureLoc());
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new DesignError(name, `module name '${name}' is not a legal identifier`, captureLoc());
    }
    if (KEYWORDS.has(name)) {
      throw new DesignError(name, `module name '${name}' is a Verilog keyword; choose another name`, captureLoc());
    }
  }

  error(message: string, loc: SrcLoc | null = captureLoc()): DesignError {
    return new DesignError(this.name, message, loc);
  }

  netName(id: NetId): string {
    return this.nets[id]!.name;
  }

  prefixed(name: string): string {
    return [...this.scopes, name].join('_');
  }

  /** @internal */
  newNet(width: number, name: string, named: boolean, loc: SrcLoc, driver: NetInfo['driver']): NetId {
    if (!Number.isInteger(width) || width < 1 || width > MAX_WIDTH) {
      throw this.error(`signal '${name}' has width ${width}; widths are integers 1..${MAX_WIDTH}`, loc);
    }
    const full = named ? this.claimName(this.prefixed(name), loc) : this.prefixed(name);
    this.nets.push({ width, name: full, named, loc, driver, scope: [...this.scopes] });
    return this.nets.length - 1;
  }

  private claimName(name: string, loc: SrcLoc): string {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw this.error(`'${name}' is not a legal signal name (letters, digits, _; not starting with a digit)`, loc);
    }
    if (KEYWORDS.has(name)) throw this.error(`'${name}' is a Verilog keyword; choose another name`, loc);
    const prev = this.names.get(name);
    if (prev) throw this.error(`signal name '${name}' is already used (at ${formatLoc(prev)})`, loc);
    this.names.set(name, loc);
    return name;
  }

  private addCell(cell: Cell): void {
    if (this.built) throw this.error('module already built; no more cells can be added', cell.loc);
    this.cells.push(cell);
  }

  /** @internal Turn an operand into a signal of exactly `width` bits, or throw naming `what`. */
  operand(x: Operand, width: number, what: string, loc: SrcLoc): Sig {
    if (x instanceof Sig) {
      if (x.m !== this) throw this.error(`${what}: signal '${x.name}' belongs to another module`, loc);
      if (x.width !== width) {
        throw this.error(`width mismatch: ${what} must be ${width} bits, '${x.name}' is ${x.width} bits`, loc);
      }
      return x;
    }
    return this.constAt(x, width, what, loc);
  }

  private constAt(value: number | bigint, width: number, what: string, loc: SrcLoc): Sig {
    if (typeof value === 'number' && (!Number.isSafeInteger(value) || value < 0)) {
      throw this.error(`${what}: constant ${value} is not a non-negative integer`, loc);
    }
    const v = BigInt(value);
    if (v < 0n || v >> BigInt(width) !== 0n) {
      throw this.error(`${what}: constant ${v} does not fit in ${width} bits`, loc);
    }
    const out = this.newNet(width, 'const', false, loc, 'cell');
    this.addCell({ kind: 'const', out, value: v, loc });
    return new Sig(this, out, width);
  }

  // ---- declarations -------------------------------------------------------------------------

  input(name: string, width: number, doc = ''): Sig {
    const loc = captureLoc();
    const net = this.newNet(width, name, true, loc, 'input');
    this.inputs.push({ name: this.netName(net), net, doc });
    return new Sig(this, net, width);
  }

  output(name: string, value: Sig, doc = ''): void {
    const loc = captureLoc();
    const full = this.prefixed(name);
    if (this.outputs.some((p) => p.name === full) || this.inputs.some((p) => p.name === full)) {
      throw this.error(`port '${full}' is declared twice`, loc);
    }
    if (value.m !== this) throw this.error(`output '${full}': signal belongs to another module`, loc);
    this.outputs.push({ name: full, net: value.net, doc });
  }

  /** The implicit synchronous, active-high reset input `rst` (created on first use). */
  get rst(): Sig {
    if (!this.rstSig) {
      const net = this.nets.length;
      this.nets.push({ width: 1, name: 'rst', named: true, loc: captureLoc(), driver: 'input', scope: [] });
      this.names.set('rst', this.nets[net]!.loc);
      this.inputs.push({ name: 'rst', net, doc: 'synchronous reset, active high' });
      this.rstSig = new Sig(this, net, 1);
    }
    return this.rstSig;
  }

  const(value: number | bigint, width: number): Sig {
    return this.constAt(value, width, 'constant', captureLoc());
  }

  wire(name: string, width: number): Wire {
    const loc = captureLoc();
    const net = this.newNet(width, name, true, loc, 'wire');
    this.wires.set(net, { source: null, assignedAt: null });
    return new Wire(this, net, width);
  }

  /** @internal */
  assignWire(w: Wire, src: Operand): void {
    const loc = captureLoc();
    const info = this.wires.get(w.net)!;
    if (info.assignedAt) {
      throw this.error(
        `multiple drivers: wire '${w.name}' is assigned again (first assigned at ${formatLoc(info.assignedAt)})`,
        loc,
      );
    }
    info.source = this.operand(src, w.width, `assignment to wire '${w.name}'`, loc);
    info.assignedAt = loc;
  }

  reg(name: string, width: number, opts: RegOptions = {}): Reg {
    const loc = captureLoc();
    const reset = opts.reset === undefined ? 0n : opts.reset;
    const net = this.newNet(width, name, true, loc, 'reg');
    const reg = new Reg(this, net, width);
    let resetValue = 0n;
    if (reset !== null) {
      if (typeof reset === 'number' && !Number.isSafeInteger(reset)) {
        throw this.error(`reset value of register '${reg.name}': ${reset} is not an integer`, loc);
      }
      resetValue = BigInt(reset);
      if (resetValue < 0n || resetValue >> BigInt(width) !== 0n) {
        throw this.error(`reset value ${resetValue} of register '${reg.name}' does not fit in ${width} bits`, loc);
      }
    }
    const en = opts.en === undefined ? null : this.operand(opts.en, 1, `enable of register '${reg.name}'`, loc);
    this.regs.push({ reg, d: null, en, rst: reset !== null, resetValue, loc });
    return reg;
  }

  /** @internal */
  setRegNext(r: Reg, d: Operand): void {
    const loc = captureLoc();
    const entry = this.regs.find((e) => e.reg === r)!;
    if (entry.d) {
      throw this.error(`multiple drivers: register '${r.name}' already has a next value`, loc);
    }
    entry.d = this.operand(d, r.width, `next value of register '${r.name}'`, loc);
  }

  memory(name: string, opts: MemoryOptions): Memory {
    const loc = captureLoc();
    const { width, depth } = opts;
    if (!Number.isInteger(width) || width < 1 || width > MAX_WIDTH) {
      throw this.error(`memory '${name}': width ${width} must be an integer 1..${MAX_WIDTH}`, loc);
    }
    if (!Number.isInteger(depth) || depth < 2 || depth > 1 << 24 || (depth & (depth - 1)) !== 0) {
      throw this.error(`memory '${name}': depth ${depth} must be a power of two from 2 to 2^24`, loc);
    }
    const mem = new Memory(this, this.claimName(this.prefixed(name), loc), {
      width,
      depth,
      mask: opts.mask ?? false,
      readDuringWrite: opts.readDuringWrite ?? 'old',
      init: opts.init ?? null,
    });
    if (opts.init) {
      if (opts.init.length > depth)
        throw this.error(`memory '${name}': ${opts.init.length} initial words for depth ${depth}`, loc);
      const bad = opts.init.findIndex((v) => v < 0n || v >> BigInt(width) !== 0n);
      if (bad >= 0) throw this.error(`memory '${name}': initial word ${bad} does not fit ${width} bits`, loc);
    }
    this.memories.push(mem);
    return mem;
  }

  // ---- operators ----------------------------------------------------------------------------

  /** @internal */
  bitwise(op: BitwiseOp, a: Sig, b: Operand): Sig {
    const loc = captureLoc();
    const bb = this.operand(b, a.width, `right operand of ${op} with '${a.name}'`, loc);
    const out = this.newNet(a.width, op, false, loc, 'cell');
    this.addCell({ kind: 'bitwise', op, a: a.net, b: bb.net, out, loc });
    return new Sig(this, out, a.width);
  }

  /** @internal */
  arith(op: ArithOp, a: Sig, b: Operand): Sig {
    const loc = captureLoc();
    const bb = this.operand(b, a.width, `right operand of ${op} with '${a.name}'`, loc);
    const out = this.newNet(a.width, op, false, loc, 'cell');
    this.addCell({ kind: 'arith', op, a: a.net, b: bb.net, out, loc });
    return new Sig(this, out, a.width);
  }

  /** @internal */
  compare(op: CompareOp, a: Sig, b: Operand): Sig {
    const loc = captureLoc();
    const bb = this.operand(b, a.width, `right operand of ${op} with '${a.name}'`, loc);
    const out = this.newNet(1, op, false, loc, 'cell');
    this.addCell({ kind: 'compare', op, a: a.net, b: bb.net, out, loc });
    return new Sig(this, out, 1);
  }

  /** @internal */
  unary(a: Sig): Sig {
    const loc = captureLoc();
    const out = this.newNet(a.width, 'not', false, loc, 'cell');
    this.addCell({ kind: 'not', a: a.net, out, loc });
    return new Sig(this, out, a.width);
  }

  /** @internal */
  shift(op: ShiftOp, a: Sig, amount: Operand): Sig {
    const loc = captureLoc();
    const amt =
      amount instanceof Sig
        ? this.operand(amount, amount.width, `shift amount`, loc)
        : this.constAt(amount, Math.max(1, Math.ceil(Math.log2(a.width + 1))), 'shift amount', loc);
    const out = this.newNet(a.width, op, false, loc, 'cell');
    this.addCell({ kind: 'shift', op, a: a.net, amount: amt.net, out, loc });
    return new Sig(this, out, a.width);
  }

  /** @internal */
  slice(a: Sig, hi: number, lo: number): Sig {
    const loc = captureLoc();
    if (!Number.isInteger(hi) || !Number.isInteger(lo) || lo < 0 || hi < lo || hi >= a.width) {
      throw this.error(`slice [${hi}:${lo}] is out of range for '${a.name}' (${a.width} bits)`, loc);
    }
    if (lo === 0 && hi === a.width - 1) return a;
    const out = this.newNet(hi - lo + 1, 'slice', false, loc, 'cell');
    this.addCell({ kind: 'slice', a: a.net, lo, out, loc });
    return new Sig(this, out, hi - lo + 1);
  }

  /** @internal */
  zext(a: Sig, width: number): Sig {
    const loc = captureLoc();
    if (width < a.width) throw this.error(`zext of '${a.name}' (${a.width} bits) to ${width} bits narrows`, loc);
    if (width === a.width) return a;
    return this.cat(this.constAt(0, width - a.width, 'zero extension', loc), a);
  }

  /** @internal */
  reduce(op: ReduceOp, a: Sig): Sig {
    const loc = captureLoc();
    const out = this.newNet(1, `reduce_${op}`, false, loc, 'cell');
    this.addCell({ kind: 'reduce', op, a: a.net, out, loc });
    return new Sig(this, out, 1);
  }

  mux(sel: Sig, whenTrue: Operand, whenFalse: Operand): Sig {
    const loc = captureLoc();
    const s = this.operand(sel, 1, 'mux select', loc);
    const width = whenTrue instanceof Sig ? whenTrue.width : whenFalse instanceof Sig ? whenFalse.width : null;
    if (width === null) throw this.error('mux needs at least one signal operand to know its width', loc);
    const t = this.operand(whenTrue, width, 'mux true input', loc);
    const f = this.operand(whenFalse, width, 'mux false input', loc);
    const out = this.newNet(width, 'mux', false, loc, 'cell');
    this.addCell({ kind: 'mux', sel: s.net, whenTrue: t.net, whenFalse: f.net, out, loc });
    return new Sig(this, out, width);
  }

  /** {parts[0], parts[1], ...}: the first part lands in the most significant bits. */
  cat(...parts: Sig[]): Sig {
    const loc = captureLoc();
    if (parts.length === 0) throw this.error('cat() of nothing', loc);
    if (parts.length === 1) return parts[0]!;
    for (const p of parts) this.operand(p, p.width, 'cat part', loc);
    const width = parts.reduce((s, p) => s + p.width, 0);
    const out = this.newNet(width, 'cat', false, loc, 'cell');
    this.addCell({ kind: 'concat', parts: parts.map((p) => p.net), out, loc });
    return new Sig(this, out, width);
  }

  /** H3 hash of `key` to `outWidth` bits (1..32), matrix from (seed, salt): see src/ir/h3.ts. */
  /**
   * H3 hash of `key` (matrix from the seed and salt). With `keyMask`, only the key bits in the
   * mask take part: hashes of a partition of the key bits XOR to the whole hash (H3 is linear),
   * which lets a pipeline split a wide XOR tree across a register stage.
   */
  h3(key: Sig, outWidth: number, opts: { seed: number; salt: number; keyMask?: bigint }): Sig {
    const loc = captureLoc();
    if (!Number.isInteger(outWidth) || outWidth < 1 || outWidth > 32) {
      throw this.error(`h3 of '${key.name}': output width ${outWidth} must be 1..32`, loc);
    }
    const full = h3Matrix(opts.seed, opts.salt, key.width, outWidth);
    const rows = opts.keyMask === undefined ? full : full.map((r) => r & opts.keyMask!);
    const out = this.newNet(outWidth, 'h3', false, loc, 'cell');
    this.addCell({ kind: 'h3', key: key.net, out, seed: opts.seed, salt: opts.salt, rows, loc });
    return new Sig(this, out, outWidth);
  }

  /** Delay `x` by `stages` registers named `${name}_p1..`; optional enable stalls them all. */
  pipe(x: Sig, stages: number, name: string, opts: { en?: Operand; reset?: number | bigint | null } = {}): Sig {
    let cur = x;
    for (let i = 1; i <= stages; i++) {
      const r = this.reg(`${name}_p${i}`, x.width, opts);
      r.next(cur);
      cur = r;
    }
    return cur;
  }

  /**
   * Inlines a built design under the scope `prefix`: its nets become `prefix_<name>` (in scope
   * `prefix`), its cells are copied, its inputs (its `rst` included, when it has one) are driven
   * by `inputs`, and its outputs are returned by port name. The hierarchy stays flat: the
   * instance's logic becomes part of this design, clocked by this design's clock. An empty
   * `prefix` keeps the instance's names and scopes (for a wrapper that adds logic around a core
   * and must look like it: the key mix).
   */
  instance(prefix: string, d: Design, inputs: Record<string, Sig>): Record<string, Sig> {
    const loc = captureLoc();
    const map = new Map<NetId, NetId>();
    for (const p of d.inputs) {
      const sig = inputs[p.name];
      const w = d.nets[p.net]!.width;
      if (!sig) throw this.error(`instance '${prefix}' of '${d.name}': input '${p.name}' is not connected`, loc);
      if (sig.width !== w)
        throw this.error(
          `instance '${prefix}' of '${d.name}': input '${p.name}' is ${w} bits, given ${sig.width}`,
          loc,
        );
      map.set(p.net, sig.net);
    }
    for (const k of Object.keys(inputs))
      if (!d.inputs.some((p) => p.name === k))
        throw this.error(`instance '${prefix}' of '${d.name}': it has no input '${k}'`, loc);
    const scope = prefix === '' ? [...this.scopes] : [...this.scopes, prefix];
    for (const n of d.nets) {
      if (map.has(n.id)) continue;
      const name = [...scope, n.name].join('_');
      if (n.named) this.claimName(name, n.loc);
      this.nets.push({
        width: n.width,
        name,
        named: n.named,
        loc: n.loc,
        driver: 'cell',
        scope: [...scope, ...(n.scope ?? [])],
      });
      map.set(n.id, this.nets.length - 1);
    }
    const f = (n: NetId): NetId => map.get(n)!;
    for (const c of d.cells) {
      const copy = remapCell(c, f);
      this.cells.push(copy.kind === 'memory' ? { ...copy, name: [...scope, copy.name].join('_') } : copy);
    }
    return Object.fromEntries(d.outputs.map((p) => [p.name, new Sig(this, f(p.net), d.nets[p.net]!.width)]));
  }

  /** Run `fn` with `name_` prefixed to every name it creates (flattened hierarchy). */
  scope<T>(name: string, fn: () => T): T {
    this.scopes.push(name);
    try {
      return fn();
    } finally {
      this.scopes.pop();
    }
  }

  // ---- lowering -----------------------------------------------------------------------------

  /** Check and lower to the IR. Throws DesignError on the first problem found. */
  build(): Design {
    if (this.built) throw this.error('build() called twice');
    this.built = true;
    for (const r of this.regs) {
      if (!r.d) throw this.error(`undriven: register '${r.reg.name}' never gets a next value (call next())`, r.loc);
      const rst = r.rst ? this.rst.net : null;
      this.cells.push({
        kind: 'reg',
        d: r.d.net,
        out: r.reg.net,
        en: r.en ? r.en.net : null,
        rst,
        resetValue: r.resetValue,
        loc: r.loc,
      });
    }
    for (const mem of this.memories) this.cells.push(mem.toCell());
    if (this.outputs.length === 0) throw this.error('module has no outputs', null);
    return runPasses(this.resolveWires());
  }

  /** Replace every wire by its source, keep the wire's name on the source when it had none. */
  private resolveWires(): Design {
    const find = (net: NetId, seen: NetId[] = []): NetId => {
      const w = this.wires.get(net);
      if (!w) return net;
      if (!w.source) {
        throw this.error(`undriven: wire '${this.nets[net]!.name}' is never assigned`, this.nets[net]!.loc);
      }
      if (seen.includes(net)) {
        const names = seen.map((n) => `'${this.nets[n]!.name}'`).join(' -> ');
        throw this.error(`combinational loop through wires ${names}`, this.nets[net]!.loc);
      }
      return find(w.source.net, [...seen, net]);
    };
    const newId = new Map<NetId, NetId>();
    const nets: Design['nets'][number][] = [];
    this.nets.forEach((n, id) => {
      if (n.driver === 'wire') return;
      newId.set(id, nets.length);
      nets.push({
        id: nets.length,
        width: n.width,
        name: n.name,
        named: n.named,
        loc: n.loc,
        ...(n.scope.length ? { scope: n.scope } : {}),
      });
    });
    // Wire names go to anonymous sources, so the Verilog shows the name the user chose.
    this.wires.forEach((_, wireNet) => {
      const target = nets[newId.get(find(wireNet))!]!;
      if (!target.named) {
        const wire = this.nets[wireNet]!;
        nets[target.id] = {
          ...target,
          name: wire.name,
          named: true,
          ...(wire.scope.length ? { scope: wire.scope } : {}),
        };
      }
    });
    const map = (n: NetId): NetId => newId.get(find(n))!;
    const cells = this.cells.map((c) => remapCell(c, map));
    const port = (p: Port): Port => ({ ...p, net: map(p.net) });
    return {
      name: this.name,
      nets,
      cells,
      inputs: this.inputs.map(port),
      outputs: this.outputs.map(port),
      meta: { ...this.meta },
      ...(this.clock !== 'clk' ? { clock: this.clock } : {}),
    };
  }
}
