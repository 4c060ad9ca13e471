/**
 * Compiles an IR design to JavaScript source: straight-line code over 32-bit words, no BigInt.
 *
 * Every net of width W is ceil(W/32) little-endian words, each an unsigned 32-bit JS number
 * with the bits above W cleared. Inside the generated functions a net is a set of `const`
 * locals (`v<net>_<word>`); state (registers, memory read data) and, for `settle`, every net
 * lives in the value array V at a fixed slot. Hash units are byte-table look-ups (H3 is linear).
 *
 * Generated functions:
 * - `settle(V, M, T, stim)`: combinational evaluation for the inputs in `stim`; stores all nets.
 * - `run(V, M, T, stim, stimBase, out, outBase, n, poison, stats)`: n clock cycles; cycle c
 *   reads inputs at stim[stimBase + c*IW ...], writes outputs (pre-edge) at
 *   out[outBase + c*OW ...] when `out` is non-null, then applies the clock edge.
 */
import { h3Tables } from '../src/ir/h3.js';
import { combOrder } from '../src/ir/topo.js';
import { assertNever, type Cell, type Design, type MemoryCell, type NetId, type RegCell } from '../src/ir/types.js';

export const words = (w: number): number => Math.ceil(w / 32);
/** Mask of the valid bits of word i of a W-bit value. */
export function wordMask(w: number, i: number): number {
  const bits = Math.min(32, w - 32 * i);
  return bits === 32 ? 0xffffffff : (2 ** bits - 1) >>> 0;
}
const hex = (x: number): string => `0x${(x >>> 0).toString(16)}`;

export interface Layout {
  /** Slot of word 0 of each net in V. */
  offset: Int32Array;
  size: number;
  inputOffsets: number[]; // word offset of each input in one stimulus row
  inputWords: number; // words per stimulus row
  outputOffsets: number[];
  outputWords: number;
  memories: MemoryCell[];
  tables: Uint32Array[];
}

export function layoutOf(d: Design): Layout {
  const offset = new Int32Array(d.nets.length);
  let size = 0;
  for (const n of d.nets) {
    offset[n.id] = size;
    size += words(n.width);
  }
  const rows = (ports: Design['inputs']): [number[], number] => {
    const offs: number[] = [];
    let k = 0;
    for (const p of ports) {
      offs.push(k);
      k += words(d.nets[p.net]!.width);
    }
    return [offs, k];
  };
  const [inputOffsets, inputWords] = rows(d.inputs);
  const [outputOffsets, outputWords] = rows(d.outputs);
  const memories = d.cells.filter((c): c is MemoryCell => c.kind === 'memory');
  const tables = d.cells.flatMap((c) => (c.kind === 'h3' ? [h3Tables(c.rows, d.nets[c.key]!.width)] : []));
  return { offset, size, inputOffsets, inputWords, outputOffsets, outputWords, memories, tables };
}

class Gen {
  readonly out: string[] = [];
  private tmp = 0;
  /** True while generating `run`: state in loop-carried locals instead of V. */
  loopState = false;
  constructor(
    readonly d: Design,
    readonly L: Layout,
  ) {}
  w(n: NetId): number {
    return this.d.nets[n]!.width;
  }
  v(n: NetId, i: number): string {
    return `v${n}_${i}`;
  }
  fresh(): string {
    return `t${this.tmp++}`;
  }
  emit(s: string): void {
    this.out.push(s);
  }
  def(n: NetId, i: number, expr: string): void {
    this.emit(`const ${this.v(n, i)} = ${expr};`);
  }
  /** Expression for bits [lo, lo+len) of net n, len <= 32, as an unsigned number. */
  bits(n: NetId, lo: number, len: number): string {
    const q = lo >>> 5;
    const r = lo & 31;
    const m = len === 32 ? '' : ` & ${hex(wordMask(len, 0))}`;
    if (r + len <= 32) {
      const shifted = r === 0 ? this.v(n, q) : `(${this.v(n, q)} >>> ${r})`;
      if (r + len === 32 || (r === 0 && len >= this.w(n) - 32 * q)) return shifted;
      return `(${shifted}${m})`;
    }
    const hi = `(${this.v(n, q + 1)} << ${32 - r})`;
    return `(((${this.v(n, q)} >>> ${r}) | ${hi})${m}) >>> 0`;
  }
}

function genComb(g: Gen, c: Cell): void {
  const W = (n: NetId): number => g.w(n);
  const nw = (n: NetId): number => words(W(n));
  const v = (n: NetId, i: number): string => g.v(n, i);
  switch (c.kind) {
    case 'const':
      for (let i = 0; i < nw(c.out); i++) g.def(c.out, i, hex(Number((c.value >> BigInt(32 * i)) & 0xffffffffn)));
      return;
    case 'not':
      for (let i = 0; i < nw(c.out); i++) g.def(c.out, i, `(~${v(c.a, i)} & ${hex(wordMask(W(c.out), i))}) >>> 0`);
      return;
    case 'bitwise': {
      const op = { and: '&', or: '|', xor: '^' }[c.op];
      for (let i = 0; i < nw(c.out); i++) g.def(c.out, i, `(${v(c.a, i)} ${op} ${v(c.b, i)}) >>> 0`);
      return;
    }
    case 'arith': {
      const k = nw(c.out);
      const w = W(c.out);
      const op = c.op === 'add' ? '+' : '-';
      if (k === 1) {
        g.def(
          c.out,
          0,
          w === 32
            ? `(${v(c.a, 0)} ${op} ${v(c.b, 0)}) >>> 0`
            : `(${v(c.a, 0)} ${op} ${v(c.b, 0)}) & ${hex(wordMask(w, 0))}`,
        );
        return;
      }
      const carry = g.fresh();
      g.emit(`let ${carry} = 0;`);
      for (let i = 0; i < k; i++) {
        const t = g.fresh();
        if (c.op === 'add') {
          g.emit(`const ${t} = ${v(c.a, i)} + ${v(c.b, i)} + ${carry};`);
          if (i < k - 1) g.emit(`${carry} = ${t} > 0xffffffff ? 1 : 0;`);
        } else {
          g.emit(`const ${t} = ${v(c.a, i)} - ${v(c.b, i)} - ${carry};`);
          if (i < k - 1) g.emit(`${carry} = ${t} < 0 ? 1 : 0;`);
        }
        g.def(c.out, i, `(${t} & ${hex(wordMask(w, i))}) >>> 0`);
      }
      return;
    }
    case 'compare': {
      const k = nw(c.a);
      const eq = Array.from({ length: k }, (_, i) => `${v(c.a, i)} === ${v(c.b, i)}`).join(' && ');
      const lt = (strict: boolean): string => {
        // Lexicographic from the top word.
        let e = `${v(c.a, 0)} ${strict ? '<' : '<='} ${v(c.b, 0)}`;
        for (let i = 1; i < k; i++) e = `${v(c.a, i)} !== ${v(c.b, i)} ? ${v(c.a, i)} < ${v(c.b, i)} : (${e})`;
        return e;
      };
      const gt = (strict: boolean): string => {
        let e = `${v(c.a, 0)} ${strict ? '>' : '>='} ${v(c.b, 0)}`;
        for (let i = 1; i < k; i++) e = `${v(c.a, i)} !== ${v(c.b, i)} ? ${v(c.a, i)} > ${v(c.b, i)} : (${e})`;
        return e;
      };
      const expr = { eq, ne: `!(${eq})`, ult: lt(true), ule: lt(false), ugt: gt(true), uge: gt(false) }[c.op];
      g.def(c.out, 0, `(${expr}) ? 1 : 0`);
      return;
    }
    case 'shift': {
      const w = W(c.out);
      const ka = nw(c.amount);
      const amt = g.fresh();
      const high = Array.from({ length: ka - 1 }, (_, i) => v(c.amount, i + 1)).join(' | ');
      g.emit(`const ${amt} = ${ka > 1 ? `(${high}) !== 0 ? 0xffffffff : ` : ''}${v(c.amount, 0)};`);
      const k = nw(c.out);
      if (k === 1) {
        let e: string;
        if (c.op === 'shr') e = `${v(c.a, 0)} >>> ${amt}`;
        else if (w === 32) e = `(${v(c.a, 0)} << ${amt}) >>> 0`;
        else e = `(${v(c.a, 0)} << ${amt}) & ${hex(wordMask(w, 0))}`;
        g.def(c.out, 0, `${amt} >= ${w} ? 0 : ${e}`);
        return;
      }
      // Multi-word: go through a scratch array (rare in hot paths).
      const src = g.fresh();
      g.emit(`const ${src} = [${Array.from({ length: k }, (_, i) => v(c.a, i)).join(', ')}];`);
      const q = g.fresh();
      const r = g.fresh();
      g.emit(`const ${q} = ${amt} >>> 5, ${r} = ${amt} & 31;`);
      const get = (idx: string): string => `((${idx}) >= 0 && (${idx}) < ${k} ? ${src}[${idx}] : 0)`;
      for (let i = 0; i < k; i++) {
        let e: string;
        if (c.op === 'shl') {
          e = `(${get(`${i} - ${q}`)} << ${r}) | (${r} === 0 ? 0 : ${get(`${i} - ${q} - 1`)} >>> (32 - ${r}))`;
        } else {
          e = `(${get(`${i} + ${q}`)} >>> ${r}) | (${r} === 0 ? 0 : ${get(`${i} + ${q} + 1`)} << (32 - ${r}))`;
        }
        g.def(c.out, i, `${amt} >= ${w} ? 0 : ((${e}) & ${hex(wordMask(w, i))}) >>> 0`);
      }
      return;
    }
    case 'mux':
      for (let i = 0; i < nw(c.out); i++)
        g.def(c.out, i, `${v(c.sel, 0)} ? ${v(c.whenTrue, i)} : ${v(c.whenFalse, i)}`);
      return;
    case 'concat': {
      const w = W(c.out);
      // Offset (from bit 0) of each part; the last part is least significant.
      const placed: { net: NetId; at: number; width: number }[] = [];
      let at = 0;
      for (let p = c.parts.length - 1; p >= 0; p--) {
        placed.push({ net: c.parts[p]!, at, width: W(c.parts[p]!) });
        at += W(c.parts[p]!);
      }
      for (let i = 0; i < words(w); i++) {
        const lo = 32 * i;
        const hi = Math.min(w, lo + 32);
        const terms: string[] = [];
        for (const p of placed) {
          const s = Math.max(lo, p.at);
          const e = Math.min(hi, p.at + p.width);
          if (s >= e) continue;
          const b = g.bits(p.net, s - p.at, e - s);
          terms.push(s - lo === 0 ? b : `(${b} << ${s - lo})`);
        }
        g.def(c.out, i, `(${terms.join(' | ')}) >>> 0`);
      }
      return;
    }
    case 'slice': {
      const w = W(c.out);
      for (let i = 0; i < words(w); i++) g.def(c.out, i, g.bits(c.a, c.lo + 32 * i, Math.min(32, w - 32 * i)));
      return;
    }
    case 'reduce': {
      const k = nw(c.a);
      const w = W(c.a);
      const ws = Array.from({ length: k }, (_, i) => v(c.a, i));
      if (c.op === 'and')
        g.def(c.out, 0, `(${ws.map((x, i) => `${x} === ${hex(wordMask(w, i))}`).join(' && ')}) ? 1 : 0`);
      else if (c.op === 'or') g.def(c.out, 0, `(${ws.join(' | ')}) !== 0 ? 1 : 0`);
      else {
        const x = g.fresh();
        g.emit(`let ${x} = ${ws.join(' ^ ')};`);
        g.emit(`${x} ^= ${x} >>> 16; ${x} ^= ${x} >>> 8; ${x} ^= ${x} >>> 4; ${x} ^= ${x} >>> 2; ${x} ^= ${x} >>> 1;`);
        g.def(c.out, 0, `${x} & 1`);
      }
      return;
    }
    case 'h3': {
      const ti = g.d.cells.filter((x) => x.kind === 'h3').indexOf(c);
      const kb = Math.ceil(W(c.key) / 8);
      const terms: string[] = [];
      const table = g.L.tables[ti]!;
      for (let b = 0; b < kb; b++) {
        // Key bytes no row selects (a partial H3 over some key bits) contribute nothing.
        if (table.subarray(b * 256, b * 256 + 256).every((x) => x === 0)) continue;
        const word = v(c.key, b >>> 2);
        const sh = (b & 3) * 8;
        const byte = sh === 0 ? `(${word} & 255)` : `((${word} >>> ${sh}) & 255)`;
        terms.push(`T${ti}[${b * 256} + ${byte}]`);
      }
      g.def(c.out, 0, terms.length ? `(${terms.join(' ^ ')}) >>> 0` : '0');
      return;
    }
    case 'reg':
    case 'memory':
      return;
    default:
      assertNever(c);
  }
}

/** Code that loads the state nets (register outputs, memory read data) from V into locals. */
/** Nets that hold state across clock edges: register outputs and memory read data. */
function stateNets(d: Design): NetId[] {
  return d.cells.flatMap((c) => (c.kind === 'reg' ? [c.out] : c.kind === 'memory' ? [c.rdData] : []));
}

/**
 * Where the state of net n, word i lives: V in `settle`; in `run` a local carried across loop
 * iterations (`s<net>_<word>`), loaded from V before the loop and stored back after it, so the
 * per-cycle code never touches V.
 */
function stateSlot(g: Gen, n: NetId, i: number): string {
  return g.loopState ? `s${n}_${i}` : `V[${g.L.offset[n]! + i}]`;
}

function genLoadState(g: Gen): void {
  for (const n of stateNets(g.d)) {
    for (let i = 0; i < words(g.w(n)); i++) g.def(n, i, stateSlot(g, n, i));
  }
}

function genInputs(g: Gen, base: string): void {
  g.d.inputs.forEach((p, k) => {
    for (let i = 0; i < words(g.w(p.net)); i++) g.def(p.net, i, `stim[${base} + ${g.L.inputOffsets[k]! + i}]`);
  });
}

function genEdge(g: Gen): void {
  const regs = g.d.cells.filter((c): c is RegCell => c.kind === 'reg');
  // 1. next values of all registers, from this cycle's locals.
  for (const r of regs) {
    for (let i = 0; i < words(g.w(r.out)); i++) {
      let e = g.v(r.d, i);
      if (r.en !== null) e = `${g.v(r.en, 0)} ? ${e} : ${g.v(r.out, i)}`;
      if (r.rst !== null) {
        e = `${g.v(r.rst, 0)} ? ${hex(Number((r.resetValue >> BigInt(32 * i)) & 0xffffffffn))} : ${e}`;
      }
      g.emit(`const n${r.out}_${i} = ${e};`);
    }
  }
  // 2. memories: read the old contents, then write.
  g.L.memories.forEach((m, k) => {
    const ww = words(m.width);
    const ra = g.v(m.rdAddr, 0);
    const wa = g.v(m.wrAddr, 0);
    g.emit(`if (${g.v(m.rdEn, 0)}) {`);
    if (m.readDuringWrite === 'undefined') {
      g.emit(`  const coll = ${g.v(m.wrEn, 0)} && ${wa} === ${ra};`);
      g.emit(`  if (coll) stats[0]++;`);
      for (let i = 0; i < ww; i++) {
        g.emit(
          `  ${stateSlot(g, m.rdData, i)} = coll && poison ? (~M${k}[${ra} * ${ww} + ${i}] & ${hex(wordMask(m.width, i))}) >>> 0 : M${k}[${ra} * ${ww} + ${i}];`,
        );
      }
    } else {
      for (let i = 0; i < ww; i++) g.emit(`  ${stateSlot(g, m.rdData, i)} = M${k}[${ra} * ${ww} + ${i}];`);
    }
    g.emit('}');
    g.emit(`if (${g.v(m.wrEn, 0)}) {`);
    for (let i = 0; i < ww; i++) {
      const slot = `M${k}[${wa} * ${ww} + ${i}]`;
      const data = g.v(m.wrData, i);
      if (m.wrMask === null) g.emit(`  ${slot} = ${data};`);
      else {
        const mk = g.v(m.wrMask, i);
        g.emit(`  ${slot} = ((${slot} & ~${mk}) | (${data} & ${mk})) >>> 0;`);
      }
    }
    g.emit('}');
  });
  // 3. commit registers.
  for (const r of regs) {
    for (let i = 0; i < words(g.w(r.out)); i++) g.emit(`${stateSlot(g, r.out, i)} = n${r.out}_${i};`);
  }
}

function prologue(g: Gen): void {
  g.L.memories.forEach((_, k) => g.emit(`const M${k} = M[${k}];`));
  g.L.tables.forEach((_, k) => g.emit(`const T${k} = T[${k}];`));
}

export interface GeneratedSource {
  settle: string;
  run: string;
}

export function generate(d: Design, L: Layout): GeneratedSource {
  const order = combOrder(d);
  // settle(V, M, T, stim)
  const s = new Gen(d, L);
  prologue(s);
  genInputs(s, '0');
  genLoadState(s);
  for (const c of order) genComb(s, c);
  for (const n of d.nets) {
    for (let i = 0; i < words(n.width); i++) s.emit(`V[${L.offset[n.id]! + i}] = ${s.v(n.id, i)};`);
  }
  // run(V, M, T, stim, stimBase, out, outBase, n, poison, stats)
  const r = new Gen(d, L);
  r.loopState = true;
  prologue(r);
  const state = stateNets(d).flatMap((n) => Array.from({ length: words(r.w(n)) }, (_, i) => [n, i] as const));
  for (const [n, i] of state) r.emit(`let s${n}_${i} = V[${L.offset[n]! + i}];`);
  r.emit(`for (let cyc = 0; cyc < n; cyc++) {`);
  r.emit(`const ib = stimBase + cyc * ${L.inputWords};`);
  genInputs(r, 'ib');
  genLoadState(r);
  for (const c of order) genComb(r, c);
  r.emit(`if (out !== null) {`);
  r.emit(`  const ob = outBase + cyc * ${L.outputWords};`);
  d.outputs.forEach((p, k) => {
    for (let i = 0; i < words(r.w(p.net)); i++) r.emit(`  out[ob + ${L.outputOffsets[k]! + i}] = ${r.v(p.net, i)};`);
  });
  r.emit('}');
  genEdge(r);
  r.emit('}');
  for (const [n, i] of state) r.emit(`V[${L.offset[n]! + i}] = s${n}_${i};`);
  const header = `// generated by bloomforge sim for design '${d.name}'\n`;
  return { settle: header + s.out.join('\n'), run: header + r.out.join('\n') };
}
