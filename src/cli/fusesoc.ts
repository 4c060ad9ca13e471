/**
 * bloomforge as a FuseSoC generator (GAPI 1.0). A user's core asks for a filter by parameters:
 *
 *   generate:
 *     dedup:
 *       generator: bloomforge
 *       parameters: { filter: apbf, k: 4, l: 3, sliceBits: 4096, keyBits: 64, seed: 1, interface: axis }
 *
 * FuseSoC runs `node bin/bloomforge-fusesoc.mjs INPUT.yml` in the folder the generated core goes
 * to; INPUT holds `vlnv`, `files_root` and `parameters` (a bloomforge config, its `name` defaulting
 * to the name part of the vlnv, plus `interface: native | axis`). The generator writes the files of
 * `generate` there and a core `<name>.core` whose `name` is the vlnv, listing the Verilog.
 * hdl/fusesoc/bloomforge.core registers the generator.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { resolveConfig } from '../config/resolve.js';
import { ConfigError, UsageError } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import { INTERFACES, ipFiles, type Interface } from '../ip/package.js';

/** Runs the generator on the input file; writes into `outDir`; returns the files written. */
export function runFusesocGenerator(input: string, outDir: string): string[] {
  let data: { vlnv?: unknown; parameters?: unknown };
  try {
    data = parse(fs.readFileSync(input, 'utf8')) as typeof data;
  } catch (e) {
    throw new UsageError(`fusesoc generator: cannot read '${input}': ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof data?.vlnv !== 'string' || data.vlnv.split(':').length < 3)
    throw new UsageError(`fusesoc generator: '${input}' has no vlnv (vendor:library:name:version)`);
  const vlnv = data.vlnv;
  const coreName = vlnv.split(':')[2]!;
  const params = (data.parameters ?? {}) as Record<string, unknown>;
  if (typeof params !== 'object' || Array.isArray(params))
    throw new ConfigError(`fusesoc generator: parameters: a bloomforge config (an object)`);
  const { interface: iface = 'native', ...config } = params;
  if (!INTERFACES.includes(iface as Interface))
    throw new ConfigError(`fusesoc generator: field 'interface': must be one of ${INTERFACES.join(', ')}`);
  const f = resolveConfig({ name: coreName, ...config }, `generator parameters of ${vlnv}`);
  const files = ipFiles(f, iface as Interface);
  const top = Object.keys(files)
    .find((n) => n.endsWith('.v') && !n.endsWith('_inst.v'))!
    .slice(0, -2);
  // The core FuseSoC reads back: the vlnv it asked for, the Verilog, the toplevel.
  delete files[`${top}.core`];
  const core = {
    name: vlnv,
    filesets: { rtl: { files: [`${top}.v`], file_type: 'verilogSource' } },
    targets: { default: { filesets: ['rtl'], toplevel: top } },
  };
  files[`${coreName}.core`] = `CAPI=2:\n${stringify(core, { lineWidth: 0, aliasDuplicateObjects: false })}`;
  return writeAll(outDir, files, 'fusesoc generator');
}

/** The generator's entry point: `node bin/bloomforge-fusesoc.mjs INPUT.yml`. */
export function fusesocMain(argv: string[]): number {
  try {
    if (argv.length !== 1) throw new UsageError('usage: bloomforge-fusesoc INPUT.yml (run by FuseSoC)');
    for (const f of runFusesocGenerator(argv[0]!, process.cwd()))
      console.log(`wrote ${path.relative(process.cwd(), f)}`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      console.error(`bloomforge-fusesoc: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
