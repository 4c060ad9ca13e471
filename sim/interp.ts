/**
 * The reference interpreter: a deliberately plain tree-walk over the IR with bigint values.
 * Slow and obviously right; the compiled simulator is tested against it cell kind by cell kind.
 */
import { combOrder } from '../src/ir/topo.js';
import { h3Reference } from '../src/ir/h3.js';
import { assertNever, mask, type Cell, type Design, type MemoryCell } from '../src/ir/types.js';
import type { Engine } from './engine.js';

export class Interpreter implements Engine {
  readonly name = 'ts-interpreter';
  private readonly values: bigint[];
  private readonly mems = new Map<MemoryCell, bigint[]>();
  private readonly order: Cell[];
  private settled = false;

  constructor(readonly design: Design) {
    this.values = new Array<bigint>(design.nets.length).fill(0n);
    this.order = combOrder(design);
    this.reset();
  }

  reset(): void {
    this.values.fill(0n);
    for (const c of this.design.cells) {
      if (c.kind === 'reg') this.values[c.out] = c.resetValue;
      if (c.kind === 'memory') {
        const words = new Array<bigint>(c.depth).fill(0n);
        c.init?.forEach((v, i) => (words[i] = v));
        this.mems.set(c, words);
      }
    }
    this.settled = false;
  }

  poke(name: string, value: bigint | number): void {
    const p = this.design.inputs.find((x) => x.name === name);
    if (!p) throw new Error(`design '${this.design.name}' has no input '${name}'`);
    this.values[p.net] = BigInt(value) & mask(this.design.nets[p.net]!.width);
    this.settled = false;
  }

  peek(name: string): bigint {
    const port = this.design.outputs.find((p) => p.name === name);
    const net = port ? port.net : this.design.nets.findIndex((n) => n.name === name);
    if (net < 0) throw new Error(`design '${this.design.name}' has no signal '${name}'`);
    this.settle();
    return this.values[net]!;
  }

  readMemory(name: string, addr: number): bigint {
    for (const [m, data] of this.mems) if (m.name === name) return data[addr]!;
    throw new Error(`design '${this.design.name}' has no memory '${name}'`);
  }

  private settle(): void {
    if (this.settled) return;
    for (const c of this.order) this.values[(c as { out: number }).out] = this.evalComb(c);
    this.settled = true;
  }

  private evalComb(c: Cell): bigint {
    const v = (n: number): bigint => this.values[n]!;
    const W = (n: number): number => this.design.nets[n]!.width;
    const bool = (b: boolean): bigint => (b ? 1n : 0n);
    switch (c.kind) {
      case 'const':
        return c.value;
      case 'not':
        return ~v(c.a) & mask(W(c.out));
      case 'bitwise':
        return c.op === 'and' ? v(c.a) & v(c.b) : c.op === 'or' ? v(c.a) | v(c.b) : v(c.a) ^ v(c.b);
      case 'arith':
        return (c.op === 'add' ? v(c.a) + v(c.b) : v(c.a) - v(c.b)) & mask(W(c.out));
      case 'compare': {
        const [a, b] = [v(c.a), v(c.b)];
        const r = { eq: a === b, ne: a !== b, ult: a < b, ule: a <= b, ugt: a > b, uge: a >= b }[c.op];
        return bool(r);
      }
      case 'shift': {
        const amt = v(c.amount);
        if (amt >= BigInt(W(c.out))) return 0n;
        return (c.op === 'shl' ? v(c.a) << amt : v(c.a) >> amt) & mask(W(c.out));
      }
      case 'mux':
        return v(c.sel) ? v(c.whenTrue) : v(c.whenFalse);
      case 'concat':
        return c.parts.reduce((acc, p) => (acc << BigInt(W(p))) | v(p), 0n);
      case 'slice':
        return (v(c.a) >> BigInt(c.lo)) & mask(W(c.out));
      case 'reduce': {
        const a = v(c.a);
        if (c.op === 'and') return bool(a === mask(W(c.a)));
        if (c.op === 'or') return bool(a !== 0n);
        let p = 0n;
        for (let x = a; x !== 0n; x >>= 1n) p ^= x & 1n;
        return p;
      }
      case 'h3':
        return h3Reference(c.rows, v(c.key));
      case 'reg':
      case 'memory':
        throw new Error('sequential cell in combinational order');
      default:
        return assertNever(c);
    }
  }

  step(n = 1): void {
    for (let i = 0; i < n; i++) this.edge();
  }

  private edge(): void {
    this.settle();
    const v = (n: number): bigint => this.values[n]!;
    const next: [number, bigint][] = [];
    for (const c of this.design.cells) {
      if (c.kind === 'reg') {
        if (c.rst !== null && v(c.rst)) next.push([c.out, c.resetValue]);
        else if (c.en === null || v(c.en)) next.push([c.out, v(c.d)]);
      } else if (c.kind === 'memory') {
        const data = this.mems.get(c)!;
        const ra = Number(v(c.rdAddr));
        const wa = Number(v(c.wrAddr));
        if (v(c.rdEn)) next.push([c.rdData, data[ra]!]);
        if (v(c.wrEn)) {
          const m = c.wrMask === null ? mask(c.width) : v(c.wrMask);
          data[wa] = (data[wa]! & ~m) | (v(c.wrData) & m);
        }
      }
    }
    for (const [net, val] of next) this.values[net] = val;
    this.settled = false;
  }
}
