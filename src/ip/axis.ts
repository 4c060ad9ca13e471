/**
 * An AXI4-Stream wrapper around any filter's core (`generate --interface axis`): the ports carry
 * the names Vivado infers as interfaces —
 *   aclk, aresetn (synchronous, active low),
 *   s_axis_tvalid / s_axis_tready / s_axis_tdata / s_axis_tuser   requests in,
 *   m_axis_tvalid / m_axis_tready / m_axis_tdata / m_axis_tuser   responses out —
 * and the core (the same design `generate` writes) is inlined under the scope `core`, so the one
 * IR gives the Verilog, the simulator and the co-simulation as for the core itself.
 *
 * Packing (also in the manifest, field by field, least significant bit first):
 *   s_axis_tdata: the key, padded with zeros to whole bytes;
 *   s_axis_tuser: the op code, then the tag, then the family's request fields;
 *   m_axis_tdata: the response fields in protocol order (hit first), padded to whole bytes;
 *   m_axis_tuser: the tag.
 *
 * With the control port (`--interface axis --control regs`) the core is the control design
 * (src/transforms/control.ts) and its `ctl_*` ports are the wrapper's, unchanged (names, widths,
 * meaning: every ctl_* input, and ctl_rdata); the module is `<name>_ctl_axis`, its manifest's
 * `control` is the core's control map, and snapshots are the same as the native control design's
 * (register and block RAM names are the core's). `AxisCoreView` drives the wrapper through the
 * core's port names, so the snapshot code and its round trip run on it unchanged.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Engine } from '../../sim/engine.js';
import type { Filter } from '../families/filter.js';
import { mask, type Design } from '../ir/types.js';

export interface AxisSlot {
  /** What the bits hold: 'key', 'op', 'tag', or a request/response field name. */
  field: string;
  /** The core port they connect to. */
  port: string;
  lsb: number;
  width: number;
}

export interface AxisLayout {
  sTdata: AxisSlot[];
  sTuser: AxisSlot[];
  mTdata: AxisSlot[];
  mTuser: AxisSlot[];
  widths: { sTdata: number; sTuser: number; mTdata: number; mTuser: number };
}

const bytes = (bits: number): number => 8 * Math.ceil(bits / 8);

function place(fields: { field: string; port: string; width: number }[]): { slots: AxisSlot[]; width: number } {
  let lsb = 0;
  const slots = fields.map((f) => {
    const s = { ...f, lsb };
    lsb += f.width;
    return s;
  });
  return { slots, width: lsb };
}

/** Where every request and response field sits in tdata and tuser. */
export function axisLayout(f: Filter): AxisLayout {
  const d = f.design();
  const width = (port: string): number => {
    const p = [...d.inputs, ...d.outputs].find((x) => x.name === port);
    if (!p) throw new Error(`design '${d.name}' has no port '${port}'`);
    return d.nets[p.net]!.width;
  };
  const p = f.protocol();
  const sTdata = place([{ field: 'key', port: 'in_key', width: width('in_key') }]);
  const sTuser = place([
    { field: 'op', port: 'in_op', width: width('in_op') },
    { field: 'tag', port: 'in_tag', width: width('in_tag') },
    ...p.request.map((x) => ({ field: x.name, port: x.port, width: width(x.port) })),
  ]);
  const mTdata = place(p.response.map((x) => ({ field: x.name, port: x.port, width: width(x.port) })));
  const mTuser = place([{ field: 'tag', port: 'out_tag', width: width('out_tag') }]);
  return {
    sTdata: sTdata.slots,
    sTuser: sTuser.slots,
    mTdata: mTdata.slots,
    mTuser: mTuser.slots,
    widths: { sTdata: bytes(sTdata.width), sTuser: sTuser.width, mTdata: bytes(mTdata.width), mTuser: mTuser.width },
  };
}

/** The wrapper's module name. */
export function axisName(f: Filter, control = false): string {
  return `${f.name}${control ? '_ctl' : ''}_axis`;
}

/** The AXI4-Stream wrapper: ports as above, the core (with the control port when asked) inlined. */
export function buildAxis(f: Filter, o: { control?: boolean } = {}): Design {
  const L = axisLayout(f);
  const core = o.control ? f.controlDesign() : f.design();
  const m = new ModuleBuilder(axisName(f, o.control), { clock: 'aclk' });
  const aresetn = m.input('aresetn', 1, 'synchronous reset, active low');
  const sValid = m.input('s_axis_tvalid', 1, 'request valid');
  const sData = m.input('s_axis_tdata', L.widths.sTdata, 'request data: the key (see the manifest)');
  const sUser = m.input(
    's_axis_tuser',
    L.widths.sTuser,
    'request sideband: op, tag, request fields (see the manifest)',
  );
  const mReady = m.input('m_axis_tready', 1, 'response consumer ready');
  const slot = (from: Sig, s: AxisSlot): Sig => from.slice(s.lsb + s.width - 1, s.lsb);
  const inputs: Record<string, Sig> = { in_valid: sValid, out_ready: mReady };
  for (const s of L.sTdata) inputs[s.port] = slot(sData, s);
  for (const s of L.sTuser) inputs[s.port] = slot(sUser, s);
  if (core.inputs.some((p) => p.name === 'rst')) inputs.rst = aresetn.not();
  for (const p of core.inputs)
    if (p.name.startsWith('ctl_')) inputs[p.name] = m.input(p.name, core.nets[p.net]!.width, p.doc ?? p.name);
  const out = m.instance('core', core, inputs);
  m.output('s_axis_tready', out.in_ready!, 'request accepted when s_axis_tvalid and s_axis_tready');
  m.output('m_axis_tvalid', out.out_valid!, 'response valid');
  const packed = (slots: AxisSlot[], width: number): Sig => {
    const parts = slots.map((s) => out[s.port]!).reverse();
    const used = slots.reduce((n, s) => n + s.width, 0);
    if (used < width) parts.unshift(m.const(0, width - used));
    return parts.length === 1 ? parts[0]! : m.cat(...parts);
  };
  m.output('m_axis_tdata', packed(L.mTdata, L.widths.mTdata), 'response data: the response fields (see the manifest)');
  m.output('m_axis_tuser', packed(L.mTuser, L.widths.mTuser), "response sideband: the request's tag");
  for (const p of core.outputs) if (p.name.startsWith('ctl_')) m.output(p.name, out[p.name]!, p.doc ?? p.name);
  Object.assign(m.meta, {
    ...f.parameters(),
    interface: 'axi4-stream',
    core: core.name,
    ...(o.control ? { control: core.meta.control } : {}),
  });
  return m.build();
}

/**
 * An engine of the wrapper seen through the core's ports (in_valid, in_key, in_op, in_tag, the
 * request fields, out_ready, rst; in_ready, out_valid, out_tag, the response fields; ctl_* as they
 * are; block RAMs by the core's names): the round trips of src/verify/ drive it as they drive the
 * core, and every value crosses the wrapper's packing on the way.
 */
export class AxisCoreView implements Engine {
  readonly name: string;
  readonly design: Design;
  private readonly L: AxisLayout;
  private readonly held = new Map<string, bigint>();

  constructor(
    f: Filter,
    readonly inner: Engine,
  ) {
    this.name = `${inner.name} (core ports)`;
    this.design = inner.design.meta.control ? f.controlDesign() : f.design();
    this.L = axisLayout(f);
  }

  reset(): void {
    this.inner.reset();
    this.held.clear();
    this.inner.poke('aresetn', 1);
  }

  private pack(slots: AxisSlot[]): bigint {
    return slots.reduce((v, s) => v | (((this.held.get(s.port) ?? 0n) & mask(s.width)) << BigInt(s.lsb)), 0n);
  }

  poke(name: string, value: bigint | number): void {
    const v = BigInt(value);
    if (name.startsWith('ctl_')) return this.inner.poke(name, v);
    if (name === 'rst') return this.inner.poke('aresetn', v === 0n ? 1 : 0);
    if (name === 'in_valid') return this.inner.poke('s_axis_tvalid', v);
    if (name === 'out_ready') return this.inner.poke('m_axis_tready', v);
    this.held.set(name, v);
    if (this.L.sTdata.some((s) => s.port === name)) this.inner.poke('s_axis_tdata', this.pack(this.L.sTdata));
    else if (this.L.sTuser.some((s) => s.port === name)) this.inner.poke('s_axis_tuser', this.pack(this.L.sTuser));
    else throw new Error(`AxisCoreView: the core has no input '${name}'`);
  }

  peek(name: string): bigint {
    if (name === 'in_ready') return this.inner.peek('s_axis_tready');
    if (name === 'out_valid') return this.inner.peek('m_axis_tvalid');
    for (const [port, slots] of [
      ['m_axis_tdata', this.L.mTdata],
      ['m_axis_tuser', this.L.mTuser],
    ] as const) {
      const s = slots.find((x) => x.port === name);
      if (s) return (this.inner.peek(port) >> BigInt(s.lsb)) & mask(s.width);
    }
    return this.inner.peek(name);
  }

  step(n = 1): void {
    this.inner.step(n);
  }

  readMemory(name: string, addr: number): bigint {
    return this.inner.readMemory(`core_${name}`, addr);
  }
}

/** The manifest of the wrapper: the core's manifest with the wrapper's ports and the packing. */
export function axisManifest(f: Filter, d: Design): Record<string, unknown> {
  const core = f.manifest();
  const ports = [...d.inputs.map((p) => ['in', p] as const), ...d.outputs.map((p) => ['out', p] as const)].map(
    ([direction, p]) => ({ name: p.name, direction, width: d.nets[p.net]!.width, doc: p.doc }),
  );
  return {
    ...core,
    ...(d.meta.control ? { control: d.meta.control } : {}),
    name: d.name,
    clock: 'aclk (rising edge)',
    reset: 'aresetn (synchronous, active low)',
    ports,
    interface: 'axi4-stream',
    core: f.name,
    axis: axisLayout(f),
  };
}
