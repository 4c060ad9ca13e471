/**
 * VCD output of the TS simulator (IEEE 1364 §18), readable by GTKWave. Nets are grouped in
 * nested scopes that follow the DSL's `m.scope` calls (bank, column, stage …) under the top
 * module, each shown by its name within its scope; the output ports also appear at the top.
 * By default only named nets are written (ports, registers, named wires and pipeline stages);
 * `all` adds the intermediate results. A cycle window (`from`, `to`) limits what is written.
 * Times (1 ns units) follow the harnesses: 10*c when cycle c's inputs are applied, 10*c+5 after
 * its rising edge.
 */
import fs from 'node:fs';
import { clockOf, type Design, type Net } from '../src/ir/types.js';
import { CompiledSim } from './compiled.js';
import type { Stimulus } from './engine.js';
import { fromWords } from './words.js';
import { VERSION } from '../src/version.js';

export interface VcdOptions {
  /** Write intermediate (unnamed) nets too. */
  all?: boolean;
  /** First and last cycle written (inclusive); the whole run by default. */
  from?: number;
  to?: number;
}

function idCode(i: number): string {
  let s = '';
  let n = i;
  do {
    s += String.fromCharCode(33 + (n % 94));
    n = Math.floor(n / 94);
  } while (n > 0);
  return s;
}

/** A net's name within its scope: its full name without the scope prefix. */
function localName(n: Net): string {
  const prefix = n.scope && n.scope.length ? `${n.scope.join('_')}_` : '';
  return prefix && n.name.startsWith(prefix) ? n.name.slice(prefix.length) : n.name;
}

interface ScopeNode {
  nets: Net[];
  children: Map<string, ScopeNode>;
}

export class VcdWriter {
  private readonly last: (bigint | null)[];
  private readonly ids: string[];
  private readonly nets: Net[];
  /** Bytes written so far. */
  bytes = 0;

  constructor(
    private readonly sink: (text: string) => void,
    private readonly d: Design,
    private readonly sim: CompiledSim,
    opts: VcdOptions = {},
  ) {
    this.ids = d.nets.map((_, i) => idCode(i + 1));
    this.last = d.nets.map(() => null);
    const ports = new Set([...d.inputs, ...d.outputs].map((p) => p.net));
    this.nets = d.nets.filter((n) => opts.all || n.named || ports.has(n.id));
    const root: ScopeNode = { nets: [], children: new Map() };
    for (const n of this.nets) {
      let at = root;
      for (const s of n.scope ?? []) {
        let next = at.children.get(s);
        if (!next) at.children.set(s, (next = { nets: [], children: new Map() }));
        at = next;
      }
      at.nets.push(n);
    }
    const out: string[] = [
      '$date bloomforge $end',
      `$version bloomforge ${VERSION} TS simulator $end`,
      '$timescale 1ns $end',
      `$scope module ${d.name} $end`,
    ];
    const hasClk = d.cells.some((c) => c.kind === 'reg' || c.kind === 'memory');
    if (hasClk) out.push(`$var wire 1 ! ${clockOf(d)} $end`);
    const vars = (s: ScopeNode): void => {
      for (const n of s.nets) {
        const name = s === root ? n.name : localName(n);
        out.push(`$var wire ${n.width} ${this.ids[n.id]} ${name}${n.width > 1 ? ` [${n.width - 1}:0]` : ''} $end`);
      }
      for (const [name, child] of s.children) {
        out.push(`$scope module ${name} $end`);
        vars(child);
        out.push('$upscope $end');
      }
    };
    vars(root);
    for (const p of d.outputs) {
      const w = d.nets[p.net]!.width;
      out.push(`$var wire ${w} ${this.ids[p.net]} ${p.name}${w > 1 ? ` [${w - 1}:0]` : ''} $end`);
    }
    out.push('$upscope $end', '$enddefinitions $end');
    this.write(out.join('\n') + '\n');
  }

  private write(text: string): void {
    this.bytes += text.length;
    this.sink(text);
  }

  /** Dump all changed nets at `time`, with clk at `clk`. */
  sample(time: number, clk: 0 | 1): void {
    this.sim.settle();
    const lines = [`#${time}`, `${clk}!`];
    for (const n of this.nets) {
      const v = fromWords(this.sim.V, this.sim.layout.offset[n.id]!, n.width);
      if (this.last[n.id] === v) continue;
      this.last[n.id] = v;
      lines.push(n.width === 1 ? `${v}${this.ids[n.id]}` : `b${v.toString(2)} ${this.ids[n.id]}`);
    }
    this.write(lines.join('\n') + '\n');
  }

  close(time: number): void {
    this.write(`#${time}\n`);
  }
}

/** Runs `cycles` cycles of rows (from `row(c)`) on a fresh simulator, sampling the window into `sink`. */
function trace(
  d: Design,
  cycles: number,
  row: (sim: CompiledSim, c: number) => void,
  sink: (text: string) => void,
  opts: VcdOptions,
): VcdWriter {
  const sim = new CompiledSim(d);
  const vcd = new VcdWriter(sink, d, sim, opts);
  const from = opts.from ?? 0;
  const to = Math.min(cycles - 1, opts.to ?? cycles - 1);
  for (let c = 0; c <= to; c++) {
    row(sim, c);
    if (c >= from) vcd.sample(10 * c, 0);
    sim.step();
    if (c >= from) vcd.sample(10 * c + 5, 1);
  }
  vcd.close(10 * (to + 1));
  return vcd;
}

/** Writes to a file descriptor in large chunks. */
function fileSink(file: string): { sink: (t: string) => void; close: () => void } {
  const fd = fs.openSync(file, 'w');
  let buf: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (buf.length) fs.writeSync(fd, buf.join(''));
    buf = [];
    size = 0;
  };
  return {
    sink: (t) => {
      buf.push(t);
      size += t.length;
      if (size > 1 << 20) flush();
    },
    close: () => {
      flush();
      fs.closeSync(fd);
    },
  };
}

function stimulusRows(d: Design, stim: Stimulus): (sim: CompiledSim, c: number) => void {
  return (sim, c) => d.inputs.forEach((p, i) => sim.poke(p.name, stim[c]![i]!));
}

function packedRows(stim: Uint32Array, inputWords: number): (sim: CompiledSim, c: number) => void {
  return (sim, c) => sim.pokeRow(stim.subarray(c * inputWords, (c + 1) * inputWords));
}

/** Run `stim` on a fresh compiled simulator and write its VCD. */
export function traceToVcd(d: Design, stim: Stimulus, file: string, opts: VcdOptions = {}): void {
  const f = fileSink(file);
  try {
    trace(d, stim.length, stimulusRows(d, stim), f.sink, opts);
  } finally {
    f.close();
  }
}

/** The same from a packed stimulus (rows of the inputs' words, as the stream driver records them). */
export function traceToVcdPacked(
  d: Design,
  stim: Uint32Array,
  cycles: number,
  file: string,
  opts: VcdOptions = {},
): void {
  const inputWords = stim.length / Math.max(1, cycles);
  const f = fileSink(file);
  try {
    trace(d, cycles, packedRows(stim, inputWords), f.sink, opts);
  } finally {
    f.close();
  }
}

/**
 * The size of the VCD a packed stimulus would write, estimated from its first cycles of the
 * window (up to `sample` of them), in bytes.
 */
export function estimateVcdBytes(
  d: Design,
  stim: Uint32Array,
  cycles: number,
  opts: VcdOptions = {},
  sample = 2000,
): number {
  const from = opts.from ?? 0;
  const to = Math.min(cycles - 1, opts.to ?? cycles - 1);
  if (to < from) return 0;
  const probeTo = Math.min(to, from + sample - 1);
  let total = 0;
  trace(d, cycles, packedRows(stim, stim.length / Math.max(1, cycles)), (t) => (total += t.length), {
    ...opts,
    to: probeTo,
  });
  return Math.round((total * (to - from + 1)) / (probeTo - from + 1));
}
