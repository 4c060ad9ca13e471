/** Icarus Verilog (iverilog + vvp) as the second reference simulator, from hdl/icarus_tb.v. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { emitVerilog } from '../../src/emit/verilog.js';
import { clockOf, mask, type Design } from '../../src/ir/types.js';
import type { OutputTrace, Stimulus } from '../engine.js';
import { REPO_ROOT, requireTool } from '../../src/tools/index.js';
import { packRows, unpackRows } from '../stimulus.js';
import { fromWords, toWords } from '../words.js';

const TEMPLATE = path.join(REPO_ROOT, 'hdl', 'icarus_tb.v');

export function icarusTestbench(d: Design, cycles: number, stimFile: string, outFile: string): string {
  // Stimulus rows are inBits wide, stored as ceil(inBits/32) words per cycle.
  const hasClk = d.cells.some((c) => c.kind === 'reg' || c.kind === 'memory');
  const inBits = Math.max(
    1,
    d.inputs.reduce((s, p) => s + d.nets[p.net]!.width, 0),
  );
  const conns: string[] = hasClk ? [`    .${clockOf(d)}(clk)`] : [];
  let at = 0;
  for (const p of d.inputs) {
    const w = d.nets[p.net]!.width;
    conns.push(`    .${p.name}(row[${at + w - 1}:${at}])`);
    at += w;
  }
  const decls: string[] = [];
  for (const p of d.outputs) {
    const w = d.nets[p.net]!.width;
    decls.push(`  wire [${w - 1}:0] o_${p.name};`);
    conns.push(`    .${p.name}(o_${p.name})`);
  }
  const fill: Record<string, string> = {
    ROW_WORDS: String(Math.ceil(inBits / 32)),
    CYCLES: String(cycles),
    DECLS: decls.join('\n'),
    MODULE: d.name,
    CONNECTIONS: conns.join(',\n'),
    STIM: stimFile,
    OUT: outFile,
    FORMAT: d.outputs.map(() => '%h').join(' '),
    OUTPUTS: d.outputs.map((p) => `o_${p.name}`).join(', '),
  };
  return fs.readFileSync(TEMPLATE, 'utf8').replace(/@@([A-Z_]+)@@/g, (_, k: string) => fill[k]!);
}

export async function runIcarus(d: Design, stim: Stimulus): Promise<OutputTrace> {
  const out = await runIcarusPacked(d, packRows(d, d.inputs, stim), stim.length);
  return unpackRows(d, d.outputs, out, stim.length);
}

/** Run `cycles` cycles of a packed stimulus on Icarus; returns the packed outputs of every cycle. */
export async function runIcarusPacked(d: Design, stim: Uint32Array, cycles: number): Promise<Uint32Array> {
  await requireTool('iverilog');
  await requireTool('vvp');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-iv-'));
  try {
    const stimFile = path.join(dir, 'stim.hex');
    const outFile = path.join(dir, 'out.txt');
    const inBits = Math.max(
      1,
      d.inputs.reduce((s, p) => s + d.nets[p.net]!.width, 0),
    );
    const rowWords = Math.ceil(inBits / 32);
    const inWords = d.inputs.reduce((s, p) => s + Math.ceil(d.nets[p.net]!.width / 32), 0);
    // The test bench takes every input packed into one vector (first input in the low bits).
    const lines: string[] = [];
    for (let c = 0; c < cycles; c++) {
      let packed = 0n;
      let at = 0n;
      let k = c * inWords;
      for (const p of d.inputs) {
        const w = d.nets[p.net]!.width;
        packed |= (fromWords(stim, k, w) & mask(w)) << at;
        at += BigInt(w);
        k += Math.ceil(w / 32);
      }
      for (let i = 0; i < rowWords; i++) lines.push(((packed >> BigInt(32 * i)) & 0xffffffffn).toString(16));
    }
    fs.writeFileSync(stimFile, lines.join('\n') + '\n');
    fs.writeFileSync(path.join(dir, `${d.name}.v`), emitVerilog(d));
    fs.writeFileSync(path.join(dir, 'tb.v'), icarusTestbench(d, Math.max(1, cycles), stimFile, outFile));
    await execa('iverilog', ['-g2005', '-o', 'sim.vvp', '-s', 'bf_tb', 'tb.v', `${d.name}.v`], { cwd: dir });
    await execa('vvp', ['-n', 'sim.vvp'], { cwd: dir });
    const text = fs.readFileSync(outFile, 'utf8').trim();
    const rows = text === '' ? [] : text.split('\n');
    const outWords = d.outputs.reduce((s, p) => s + Math.ceil(d.nets[p.net]!.width / 32), 0);
    const out = new Uint32Array(cycles * outWords);
    rows.slice(0, cycles).forEach((line, c) => {
      const fields = line.trim().split(/\s+/);
      let k = c * outWords;
      d.outputs.forEach((p, i) => {
        const w = d.nets[p.net]!.width;
        const h = fields[i] ?? '';
        // The other engines have no x or z: an undefined output is a failure of the design.
        if (!/^[0-9a-f]+$/i.test(h)) throw new Error(`icarus: '${h}' (not a defined value) on ${p.name} in cycle ${c}`);
        out.set(toWords(BigInt(`0x${h}`), w), k);
        k += Math.ceil(w / 32);
      });
    });
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
