/**
 * One entry point for every filter family: derive a config by its `filter` field, build its
 * pipeline, and write its manifest.
 */
import { manifestOf } from '../emit/manifest.js';
import type { Design } from '../ir/types.js';
import { buildApbf } from './apbf/rtl.js';
import { apbfParameters, LATENCY, OP, RESPONSE_QUEUE } from './apbf/params.js';
import { ConfigError, deriveApbf } from './apbf/config.js';
import type { ApbfDerived } from './apbf/types.js';
import { buildTbf } from './tbf/rtl.js';
import { TBF_OP, TBF_RESPONSE_QUEUE, tbfLatency, tbfParameters } from './tbf/params.js';
import { deriveTbf } from './tbf/config.js';
import type { TbfDerived } from './tbf/types.js';
import { ice40Blocks } from '../synth/bram.js';

export type FilterDerived = ApbfDerived | TbfDerived;

export function isTbf(c: FilterDerived): c is TbfDerived {
  return c.filter === 'tbf' || c.filter === 'btbf';
}

export function deriveFilter(raw: unknown, source = 'config'): FilterDerived {
  const filter = typeof raw === 'object' && raw !== null ? (raw as { filter?: unknown }).filter : undefined;
  if (filter === 'tbf' || filter === 'btbf') return deriveTbf(raw, source);
  if (filter === 'apbf' || filter === 'apbbf' || filter === undefined) return deriveApbf(raw, source);
  throw new ConfigError(`${source}: field 'filter': must be one of apbf, apbbf, tbf, btbf`);
}

export function buildFilter(c: FilterDerived): Design {
  return isTbf(c) ? buildTbf(c) : buildApbf(c);
}

export function filterLatency(c: FilterDerived): number {
  return isTbf(c) ? tbfLatency(c) : LATENCY;
}

function parametersOf(c: FilterDerived): Record<string, unknown> {
  return isTbf(c) ? tbfParameters(c) : apbfParameters(c);
}

export function filterManifest(c: FilterDerived, d: Design): Record<string, unknown> {
  const { meta: _meta, ...base } = manifestOf(d);
  void _meta;
  const memBits = base.memories.reduce((s, m) => s + m.bits, 0);
  return {
    ...base,
    latency: {
      cycles: filterLatency(c),
      note: 'from the accepting cycle of a request to out_valid, with out_ready high',
    },
    initiationInterval: 1,
    responseQueue: isTbf(c) ? TBF_RESPONSE_QUEUE : RESPONSE_QUEUE,
    opcodes: isTbf(c) ? TBF_OP : OP,
    parameters: parametersOf(c),
    blockRam: {
      bits: memBits,
      memories: base.memories.length,
      ice40Blocks: base.memories.reduce((s, m) => s + ice40Blocks(m.width, m.depth), 0),
      note: 'ice40Blocks counts SB_RAM40_4K at the best of their 256x16/512x8/1024x4/2048x2 modes; Yosys reports the real count (npx bloomforge synth)',
    },
  };
}
