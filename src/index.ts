/**
 * bloomforge as a library: build a filter from a config, generate its Verilog (or the whole IP
 * folder), run its pipeline in the compiled simulator, run its reference model, verify the one
 * against the other.
 *
 *   import { loadConfig, resolveConfig, CompiledSim } from 'bloomforge';
 *   const f = resolveConfig({ name: 'dedup', filter: 'apbf', k: 4, l: 3, sliceBits: 4096, keyBits: 64, seed: 1 });
 *   const verilog = f.verilog();
 *   const sim = new CompiledSim(f.design());
 *   const model = f.model();
 *
 * `loadFilter` / `resolveFilter` take any config, one-lane or N-lane (`lanes`, `shards`): a
 * `Filter` or a `LaneFilter`, both a `ConfiguredFilter`, told apart by `kind`.
 */
export { loadConfig, presetNames, resolveConfig, loadPreset } from './config/resolve.js';
export { loadFilter, resolveFilter, type ShapeOverrides } from './config/load.js';
export { LaneFilter, type AnyFilter } from './lanes/filter.js';
export { FAMILIES, familyOf, filterNames } from './families/index.js';
export { Filter, type ConfiguredFilter } from './families/filter.js';
export type {
  Analysis,
  FilterConfig,
  FilterFamily,
  MemoryCheck,
  PortField,
  ResponseFields,
  StreamModel,
  StreamProtocol,
  StreamRequest,
} from './families/types.js';
export { ModuleBuilder, Sig } from './dsl/module.js';
export type { Design } from './ir/types.js';
export { emitVerilog } from './emit/verilog.js';
export { ipFiles, type Interface } from './ip/package.js';
export { buildAxis, axisLayout } from './ip/axis.js';
export { CompiledSim } from '../sim/compiled.js';
export { drive, driveAsync, type DriveOptions, type DriveResult } from './verify/stream.js';
export { verifyFilter, type VerifyOptions, type VerifyResult } from './verify/index.js';
export { synthesize, type SynthResult } from './synth/index.js';
export { ConfigError, UsageError } from './util/errors.js';
export { VERSION } from './version.js';
