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
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Filter } from '../families/filter.js';
import type { Design } from '../ir/types.js';

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
export function axisName(f: Filter): string {
  return `${f.name}_axis`;
}

/** The AXI4-Stream wrapper: ports as above, the core inlined. */
export function buildAxis(f: Filter): Design {
  const L = axisLayout(f);
  const core = f.design();
  const m = new ModuleBuilder(axisName(f), { clock: 'aclk' });
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
  Object.assign(m.meta, { ...f.parameters(), interface: 'axi4-stream', core: core.name });
  return m.build();
}

/** The manifest of the wrapper: the core's manifest with the wrapper's ports and the packing. */
export function axisManifest(f: Filter, d: Design): Record<string, unknown> {
  const core = f.manifest();
  const ports = [...d.inputs.map((p) => ['in', p] as const), ...d.outputs.map((p) => ['out', p] as const)].map(
    ([direction, p]) => ({ name: p.name, direction, width: d.nets[p.net]!.width, doc: p.doc }),
  );
  return {
    ...core,
    name: d.name,
    clock: 'aclk (rising edge)',
    reset: 'aresetn (synchronous, active low)',
    ports,
    interface: 'axi4-stream',
    core: f.name,
    axis: axisLayout(f),
  };
}
