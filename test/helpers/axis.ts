/** The AXI4-Stream wrapper against its core and against Verilator (fast and slow tiers). */
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/resolve.js';
import { axisLayout, buildAxis } from '../../src/ip/axis.js';
import { mask } from '../../src/ir/types.js';
import { CompiledSim } from '../../sim/compiled.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { randomStimulus } from '../../sim/stimulus.js';

/**
 * Random AXI4-Stream stimulus (reset in the first cycle, then now and then): the wrapper's
 * outputs equal the core's, unpacked, every cycle; and the wrapper agrees with Verilator.
 */
export async function checkAxis(preset: string, cycles: number, opts: { verilator?: boolean } = {}): Promise<void> {
  const f = loadConfig(preset);
  const L = axisLayout(f);
  const w = buildAxis(f);
  const core = f.design();
  const stim = randomStimulus(w, cycles, 11, {
    drive: { aresetn: (c, rng) => (c === 0 || rng.float() < 0.001 ? 0n : 1n) },
  });
  const ws = new CompiledSim(w);
  const cs = new CompiledSim(core);
  const idx = (d: typeof w, name: string): number => d.inputs.findIndex((p) => p.name === name);
  const field = (v: bigint, lsb: number, width: number): bigint => (v >> BigInt(lsb)) & mask(width);
  for (let c = 0; c < cycles; c++) {
    const row = stim[c]!;
    w.inputs.forEach((p, i) => ws.poke(p.name, row[i]!));
    const tdata = row[idx(w, 's_axis_tdata')]!;
    const tuser = row[idx(w, 's_axis_tuser')]!;
    cs.poke('in_valid', row[idx(w, 's_axis_tvalid')]!);
    cs.poke('out_ready', row[idx(w, 'm_axis_tready')]!);
    cs.poke('rst', 1n - row[idx(w, 'aresetn')]!);
    for (const s of L.sTdata) cs.poke(s.port, field(tdata, s.lsb, s.width));
    for (const s of L.sTuser) cs.poke(s.port, field(tuser, s.lsb, s.width));
    expect(ws.peek('s_axis_tready'), `cycle ${c}`).toBe(cs.peek('in_ready'));
    expect(ws.peek('m_axis_tvalid'), `cycle ${c}`).toBe(cs.peek('out_valid'));
    const data = ws.peek('m_axis_tdata');
    for (const s of L.mTdata) expect(field(data, s.lsb, s.width), `cycle ${c} ${s.field}`).toBe(cs.peek(s.port));
    expect(
      field(
        data,
        L.mTdata.reduce((n, s) => n + s.width, 0),
        64,
      ),
    ).toBe(0n); // padding
    expect(ws.peek('m_axis_tuser'), `cycle ${c}`).toBe(cs.peek('out_tag'));
    ws.step();
    cs.step();
  }
  if (opts.verilator === false) return;
  const r = await cosimulate(w, stim, { interpreter: false });
  for (const x of r.comparisons) expect(x.count, formatComparison(x, w)).toBe(0);
}
