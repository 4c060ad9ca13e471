/**
 * A place-and-route harness for designs with more port bits than the package has pins (the 4-
 * and 8-lane designs: about 70 port bits per lane, against 206 user pins of the HX8K's CT256).
 * Such a design is an IP block whose ports meet other logic on the chip, not pins; to place it on
 * its own, `synth` wraps it:
 *   - every input bit but rst comes from one register of a shift chain fed by the pin `io_sin`
 *     (so the inputs are registers, as they would be in the logic around the block);
 *   - every output bit goes into a register, and the registers' parity (an XOR tree, registered)
 *     drives the pin `io_sout`, so no output bit can be optimised away.
 * The harness's registers and XOR tree are in the counts and the timing `synth` reports (it says
 * how many it added). The design itself is the instance `dut`: its nets keep their names after
 * that prefix, so a critical path still maps to the DSL's source lines.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Design } from '../ir/types.js';

/** The design's instance name in the harness, and so the prefix of its nets there. */
export const HARNESS_PREFIX = 'dut_';

/** Port bits of a design that would need pins (clk aside; rst counted). */
export function portBits(d: Design): number {
  return [...d.inputs, ...d.outputs].reduce((s, p) => s + d.nets[p.net]!.width, 0);
}

export interface Harness {
  design: Design;
  /** Flip-flops of the input chain and of the output registers, and the XOR tree's inputs. */
  inputBits: number;
  outputBits: number;
}

/** The design wrapped as above when its port bits exceed `pins`, else null. */
export function ioHarness(d: Design, pins: number): Harness | null {
  if (portBits(d) <= pins) return null;
  const m = new ModuleBuilder(`${d.name}_io`);
  Object.assign(m.meta, d.meta);
  const sin = m.input('io_sin', 1, 'serial input: shifts through a register for every input bit of the design');
  const ins = d.inputs.filter((p) => p.name !== 'rst');
  const inputBits = ins.reduce((s, p) => s + d.nets[p.net]!.width, 0);
  const chain = m.reg('io_chain', Math.max(2, inputBits), { reset: null });
  chain.next(m.cat(chain.slice(chain.width - 2, 0), sin));
  const wiring: Record<string, Sig> = {};
  let lo = 0;
  for (const p of ins) {
    const w = d.nets[p.net]!.width;
    wiring[p.name] = chain.slice(lo + w - 1, lo);
    lo += w;
  }
  if (d.inputs.some((p) => p.name === 'rst')) wiring.rst = m.rst;
  const dut = m.instance(HARNESS_PREFIX.slice(0, -1), d, wiring);
  const outs = d.outputs.map((p) => dut[p.name]!);
  const outputBits = outs.reduce((s, o) => s + o.width, 0);
  const held = m.pipe(m.cat(...outs), 1, 'io_out', { reset: null });
  m.output('io_sout', m.pipe(held.parity(), 1, 'io_parity', { reset: null }), 'parity of the registered outputs');
  return { design: m.build(), inputBits, outputBits };
}
