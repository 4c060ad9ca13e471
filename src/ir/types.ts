/**
 * The IR: a flat netlist of cells over nets with explicit widths, one clock domain (`clk`).
 * Every back-end (Verilog emitter, compiled simulator, reference interpreter) consumes this and
 * nothing else. Cells are a discriminated union on `kind`; back-ends switch on it and end in
 * `assertNever`, so adding a cell kind fails to compile wherever it is not handled.
 */

/** Where in the DSL source a net or cell was created. */
export interface SrcLoc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export type NetId = number;

export interface Net {
  readonly id: NetId;
  readonly width: number;
  /** A readable name from the DSL, unique within the design after `nameNets`. */
  name: string;
  /** True when the user named it (port, register, wire); false for intermediate results. */
  readonly named: boolean;
  readonly loc: SrcLoc;
  /** The DSL scopes (`m.scope`) it was made in, outermost first; its name starts with them joined by '_'. */
  readonly scope?: readonly string[];
}

export type BitwiseOp = 'and' | 'or' | 'xor';
export type ArithOp = 'add' | 'sub';
/** Unsigned comparisons. */
export type CompareOp = 'eq' | 'ne' | 'ult' | 'ule' | 'ugt' | 'uge';
export type ShiftOp = 'shl' | 'shr';
export type ReduceOp = 'and' | 'or' | 'xor';

interface CellBase {
  readonly loc: SrcLoc;
}

export interface ConstCell extends CellBase {
  readonly kind: 'const';
  readonly out: NetId;
  readonly value: bigint;
}
export interface NotCell extends CellBase {
  readonly kind: 'not';
  readonly a: NetId;
  readonly out: NetId;
}
/** a OP b, all three the same width. */
export interface BitwiseCell extends CellBase {
  readonly kind: 'bitwise';
  readonly op: BitwiseOp;
  readonly a: NetId;
  readonly b: NetId;
  readonly out: NetId;
}
/** a OP b modulo 2^width, all three the same width. */
export interface ArithCell extends CellBase {
  readonly kind: 'arith';
  readonly op: ArithOp;
  readonly a: NetId;
  readonly b: NetId;
  readonly out: NetId;
}
/** Unsigned compare of two same-width nets; `out` is 1 bit. */
export interface CompareCell extends CellBase {
  readonly kind: 'compare';
  readonly op: CompareOp;
  readonly a: NetId;
  readonly b: NetId;
  readonly out: NetId;
}
/** Logical shift of `a` by the unsigned amount `amount` (any width); result is a's width. */
export interface ShiftCell extends CellBase {
  readonly kind: 'shift';
  readonly op: ShiftOp;
  readonly a: NetId;
  readonly amount: NetId;
  readonly out: NetId;
}
/** out = sel ? whenTrue : whenFalse; `sel` is 1 bit. */
export interface MuxCell extends CellBase {
  readonly kind: 'mux';
  readonly sel: NetId;
  readonly whenTrue: NetId;
  readonly whenFalse: NetId;
  readonly out: NetId;
}
/** out = {parts[0], parts[1], ...}: parts[0] lands in the most significant bits (Verilog order). */
export interface ConcatCell extends CellBase {
  readonly kind: 'concat';
  readonly parts: readonly NetId[];
  readonly out: NetId;
}
/** out = a[lo + width(out) - 1 : lo]. */
export interface SliceCell extends CellBase {
  readonly kind: 'slice';
  readonly a: NetId;
  readonly lo: number;
  readonly out: NetId;
}
/** Reduction of all bits of `a` to 1 bit. */
export interface ReduceCell extends CellBase {
  readonly kind: 'reduce';
  readonly op: ReduceOp;
  readonly a: NetId;
  readonly out: NetId;
}
/**
 * A register on the rising edge of clk. Synchronous reset dominates enable:
 * `if (rst) q <= resetValue; else if (en) q <= d;`. Power-up value is `resetValue` in every
 * engine (Verilog initialiser; iCE40 flip-flops honour it).
 */
export interface RegCell extends CellBase {
  readonly kind: 'reg';
  readonly d: NetId;
  readonly out: NetId;
  readonly en: NetId | null;
  readonly rst: NetId | null;
  readonly resetValue: bigint;
}
/**
 * Simple dual-port block RAM: one synchronous read port, one write port, same clock.
 * Read: on a rising edge with `rdEn` high, `rdData` takes `mem[rdAddr]` (one cycle latency);
 * it holds its value otherwise. Write: on a rising edge with `wrEn` high, the bits of
 * `wrData` selected by `wrMask` (all bits when there is no mask) are written to `mem[wrAddr]`.
 *
 * Read-during-write to the same address in the same cycle:
 * - `'old'`: the read returns the data from before the write, in simulation and in hardware
 *   (on iCE40 Yosys adds bypass logic to guarantee it).
 * - `'undefined'`: simulators return the old data, but synthesis is told the value is a don't
 *   care (no bypass logic). A design must not depend on it; the TS simulator's `poisonCollisions`
 *   option returns inverted data on such reads so tests can prove the design does not.
 * Contents at power-up are zero (iCE40 block RAM is zero after configuration).
 */
export interface MemoryCell extends CellBase {
  readonly kind: 'memory';
  readonly name: string;
  readonly width: number;
  readonly depth: number;
  readonly rdAddr: NetId;
  readonly rdEn: NetId;
  readonly rdData: NetId;
  readonly wrAddr: NetId;
  readonly wrEn: NetId;
  readonly wrData: NetId;
  readonly wrMask: NetId | null;
  readonly readDuringWrite: 'old' | 'undefined';
  /**
   * Contents at power-up (word i = init[i], the rest zero), or null for all zero. A memory whose
   * write enable is the constant 0 is a ROM; Yosys maps it to block RAM with INIT values.
   */
  readonly init: readonly bigint[] | null;
}
/**
 * H3 hash: output bit j = XOR of the key bits selected by `rows[j]` (a keyWidth-bit mask).
 * The rows come from `h3Matrix(seed, salt, ...)` (src/ir/h3.ts), so every engine agrees.
 */
export interface H3Cell extends CellBase {
  readonly kind: 'h3';
  readonly key: NetId;
  readonly out: NetId;
  readonly seed: number;
  readonly salt: number;
  readonly rows: readonly bigint[];
}

export type Cell =
  | ConstCell
  | NotCell
  | BitwiseCell
  | ArithCell
  | CompareCell
  | ShiftCell
  | MuxCell
  | ConcatCell
  | SliceCell
  | ReduceCell
  | RegCell
  | MemoryCell
  | H3Cell;

export type CellKind = Cell['kind'];

export interface Port {
  readonly name: string;
  readonly net: NetId;
  /** What the port means, written into the Verilog header and the manifest. */
  readonly doc: string;
}

/** A complete, checked design: what every back-end consumes. */
export interface Design {
  readonly name: string;
  readonly nets: readonly Net[];
  readonly cells: readonly Cell[];
  /** Inputs in declaration order; the clock is implicit and never listed. */
  readonly inputs: readonly Port[];
  readonly outputs: readonly Port[];
  /** Free-form facts about the design (latency, parameters), copied into manifests. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The clock's name (rising edge); `clk` when not given. */
  readonly clock?: string;
}

/** The name of a design's clock. */
export function clockOf(d: Pick<Design, 'clock'>): string {
  return d.clock ?? 'clk';
}

export function assertNever(x: never): never {
  throw new Error(`unhandled IR variant: ${JSON.stringify(x)}`);
}

/** Nets a cell reads, in a fixed order. */
export function cellInputs(c: Cell): NetId[] {
  switch (c.kind) {
    case 'const':
      return [];
    case 'not':
    case 'slice':
    case 'reduce':
      return [c.a];
    case 'bitwise':
    case 'arith':
    case 'compare':
      return [c.a, c.b];
    case 'shift':
      return [c.a, c.amount];
    case 'mux':
      return [c.sel, c.whenTrue, c.whenFalse];
    case 'concat':
      return [...c.parts];
    case 'reg':
      return [c.d, ...(c.en === null ? [] : [c.en]), ...(c.rst === null ? [] : [c.rst])];
    case 'memory':
      return [c.rdAddr, c.rdEn, c.wrAddr, c.wrEn, c.wrData, ...(c.wrMask === null ? [] : [c.wrMask])];
    case 'h3':
      return [c.key];
    default:
      return assertNever(c);
  }
}

/** The net a cell drives. */
export function cellOutput(c: Cell): NetId {
  return c.kind === 'memory' ? c.rdData : c.out;
}

/** True for cells whose output changes only on a clock edge (they break combinational paths). */
export function isSequential(c: Cell): c is RegCell | MemoryCell {
  return c.kind === 'reg' || c.kind === 'memory';
}

/** Inputs a cell reads combinationally (sequential cells read theirs only at the edge). */
export function combInputs(c: Cell): NetId[] {
  return isSequential(c) ? [] : cellInputs(c);
}

export function addrWidth(depth: number): number {
  return Math.max(1, Math.ceil(Math.log2(depth)));
}

export function mask(width: number): bigint {
  return (1n << BigInt(width)) - 1n;
}
