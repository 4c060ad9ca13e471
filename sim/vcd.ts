/**
 * VCD output of the TS simulator (IEEE 1364 §18), readable by GTKWave. Every net of the design
 * appears under the top scope with its Verilog name. Times (1 ns units) follow the harnesses:
 * 10*c when cycle c's inputs are applied, 10*c+5 after its rising edge.
 */
import fs from 'node:fs';
import type { Design } from '../src/ir/types.js';
import { CompiledSim } from './compiled.js';
import type { Stimulus } from './engine.js';
import { fromWords } from './words.js';
import { VERSION } from '../src/version.js';

function idCode(i: number): string {
  let s = '';
  let n = i;
  do {
    s += String.fromCharCode(33 + (n % 94));
    n = Math.floor(n / 94);
  } while (n > 0);
  return s;
}

export class VcdWriter {
  private readonly fd: number;
  private readonly last: (bigint | null)[];
  private readonly ids: string[];

  constructor(
    file: string,
    private readonly d: Design,
    private readonly sim: CompiledSim,
  ) {
    this.fd = fs.openSync(file, 'w');
    this.ids = d.nets.map((_, i) => idCode(i + 1));
    this.last = d.nets.map(() => null);
    const out: string[] = [
      '$date bloomforge $end',
      `$version bloomforge ${VERSION} TS simulator $end`,
      '$timescale 1ns $end',
      `$scope module ${d.name} $end`,
    ];
    const hasClk = d.cells.some((c) => c.kind === 'reg' || c.kind === 'memory');
    if (hasClk) out.push('$var wire 1 ! clk $end');
    for (const n of d.nets) {
      out.push(`$var wire ${n.width} ${this.ids[n.id]} ${n.name}${n.width > 1 ? ` [${n.width - 1}:0]` : ''} $end`);
    }
    for (const p of d.outputs) {
      const w = d.nets[p.net]!.width;
      out.push(`$var wire ${w} ${this.ids[p.net]} ${p.name}${w > 1 ? ` [${w - 1}:0]` : ''} $end`);
    }
    out.push('$upscope $end', '$enddefinitions $end');
    fs.writeSync(this.fd, out.join('\n') + '\n');
  }

  /** Dump all changed nets at `time`, with clk at `clk`. */
  sample(time: number, clk: 0 | 1): void {
    this.sim.settle();
    const lines = [`#${time}`, `${clk}!`];
    for (const n of this.d.nets) {
      const v = fromWords(this.sim.V, this.sim.layout.offset[n.id]!, n.width);
      if (this.last[n.id] === v) continue;
      this.last[n.id] = v;
      lines.push(n.width === 1 ? `${v}${this.ids[n.id]}` : `b${v.toString(2)} ${this.ids[n.id]}`);
    }
    fs.writeSync(this.fd, lines.join('\n') + '\n');
  }

  close(time: number): void {
    fs.writeSync(this.fd, `#${time}\n`);
    fs.closeSync(this.fd);
  }
}

/** Run `stim` on a fresh compiled simulator and write its VCD; returns the simulator. */
export function traceToVcd(d: Design, stim: Stimulus, file: string): CompiledSim {
  const sim = new CompiledSim(d);
  const vcd = new VcdWriter(file, d, sim);
  stim.forEach((row, c) => {
    d.inputs.forEach((p, i) => sim.poke(p.name, row[i]!));
    vcd.sample(10 * c, 0);
    sim.step();
    vcd.sample(10 * c + 5, 1);
  });
  vcd.close(10 * stim.length);
  return sim;
}

/** The same from a packed stimulus (rows of the inputs' words, as the stream driver records them). */
export function traceToVcdPacked(d: Design, stim: Uint32Array, cycles: number, file: string): CompiledSim {
  const sim = new CompiledSim(d);
  const vcd = new VcdWriter(file, d, sim);
  const rw = sim.layout.inputWords;
  for (let c = 0; c < cycles; c++) {
    sim.pokeRow(stim.subarray(c * rw, (c + 1) * rw));
    vcd.sample(10 * c, 0);
    sim.step();
    vcd.sample(10 * c + 5, 1);
  }
  vcd.close(10 * cycles);
  return sim;
}
