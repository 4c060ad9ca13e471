/**
 * The keys FuseSoC's CAPI2 schema allows (fusesoc/capi2/json_schema.py in olofk/fusesoc, read for
 * these tables; FuseSoC itself cannot be installed here), and a check of a parsed core against
 * them: every key at every level must be one the schema names, required keys present.
 */
const TOP = [
  'name',
  'description',
  'license',
  'filesets',
  'generate',
  'generators',
  'parameters',
  'provider',
  'scripts',
  'targets',
  'vpi',
  'virtual',
  'mapping',
];
const FILESET = ['file_type', 'logical_name', 'tags', 'files', 'files_append', 'depend', 'depend_append'];
const FILE_OPTIONS = ['define', 'is_include_file', 'include_path', 'file_type', 'logical_name', 'tags', 'copyto'];
const TARGET = [
  'default_tool',
  'description',
  'flow',
  'flow_options',
  'hooks',
  'tools',
  'toplevel',
  'flags',
  'filesets',
  'filesets_append',
  'filters',
  'filters_append',
  'generate',
  'generate_append',
  'parameters',
  'parameters_append',
  'vpi',
  'vpi_append',
];
const GENERATOR = ['command', 'interpreter', 'cache_type', 'file_input_parameters', 'description', 'usage'];
const GENERATE = ['generator', 'position', 'parameters'];
const PARAMETER = ['datatype', 'default', 'description', 'paramtype', 'scope'];

/** Problems of a parsed CAPI2 core (empty: it conforms to the schema's keys). */
export function capi2Problems(core: Record<string, unknown>): string[] {
  const out: string[] = [];
  const keys = (where: string, o: unknown, allowed: string[], required: string[] = []): void => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) {
      out.push(`${where}: not a mapping`);
      return;
    }
    for (const k of Object.keys(o)) if (!allowed.includes(k)) out.push(`${where}: unknown key '${k}'`);
    for (const k of required) if (!(k in o)) out.push(`${where}: missing '${k}'`);
  };
  const each = (where: string, o: unknown, fn: (name: string, v: unknown) => void): void => {
    if (o === undefined) return;
    if (typeof o !== 'object' || o === null) return void out.push(`${where}: not a mapping`);
    for (const [k, v] of Object.entries(o)) fn(`${where}.${k}`, v);
  };
  keys('core', core, TOP);
  if (typeof core.name !== 'string' || core.name.split(':').length < 3)
    out.push(`core.name: not a VLNV: ${String(core.name)}`);
  each('filesets', core.filesets, (w, fs) => {
    keys(w, fs, FILESET);
    const files = (fs as { files?: unknown }).files;
    if (!Array.isArray(files)) out.push(`${w}.files: not a list`);
    else
      for (const f of files)
        if (typeof f !== 'string') each(`${w}.files`, f, (fw, opts) => keys(fw, opts, FILE_OPTIONS));
  });
  each('targets', core.targets, (w, t) => keys(w, t, TARGET));
  each('generators', core.generators, (w, g) => keys(w, g, GENERATOR, ['command']));
  each('generate', core.generate, (w, g) => keys(w, g, GENERATE, ['generator']));
  each('parameters', core.parameters, (w, p) => {
    keys(w, p, PARAMETER, ['datatype', 'paramtype']);
    const dt = (p as { datatype?: unknown }).datatype;
    if (!['bool', 'file', 'int', 'real', 'str'].includes(String(dt))) out.push(`${w}.datatype: '${String(dt)}'`);
  });
  return out;
}

/** A .core file's text -> the mapping after the `CAPI=2:` line. */
export function coreBody(text: string): string {
  if (!text.startsWith('CAPI=2:\n')) throw new Error('a CAPI2 core starts with the line CAPI=2:');
  return text.slice('CAPI=2:\n'.length);
}
