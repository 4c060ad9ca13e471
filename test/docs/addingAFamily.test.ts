/**
 * docs/adding-a-family.md cannot rot: its code blocks tagged `file=src/families/mini/…` are
 * extracted into a temporary folder (under .cache/, outside the folders tsc and the linters read),
 * their relative imports pointed at src/, typechecked with the project's compiler options (so the
 * family object meets FilterFamily as the page shows it), and imported: the family's preset is
 * derived, its design built and run against its model on the compiled simulator through the
 * project's verifier (0 mismatches, memories equal), a snapshot through the control port loads
 * into its model (fromSnapshot), its in-folder imports obey the dependency check's family ranks,
 * and the page names every member of FilterFamily.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Filter } from '../../src/families/filter.js';
import { failer, parseConfig } from '../../src/families/schema.js';
import type { FilterFamily } from '../../src/families/types.js';
import { verifyFilter } from '../../src/verify/index.js';
import { modelRoundTrip } from '../../src/verify/roundtrip.js';

const DOC = path.resolve('docs/adding-a-family.md');
const FOLDER = 'src/families/mini/';

/** The page's code blocks tagged with a file under the walkthrough's folder: path -> text. */
function blocks(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of md.matchAll(/^```\w+ file=(\S+)\n([\s\S]*?)^```$/gm)) {
    const file = b[1]!;
    if (!file.startsWith(FOLDER)) throw new Error(`a code block outside ${FOLDER}: ${file}`);
    if (out.has(file)) throw new Error(`two code blocks for ${file}`);
    out.set(file, b[2]!);
  }
  return out;
}

/** `from '../…'` imports of a file in src/families/mini/ made relative to the same file in `dir`. */
function pointAtSrc(text: string, fileInRepo: string, fileInDir: string): string {
  return text.replace(/(from\s+')(\.\.\/[^']+)(')/g, (_, a: string, spec: string, b: string) => {
    const target = path.resolve(path.dirname(fileInRepo), spec);
    let rel = path.relative(path.dirname(fileInDir), target).split(path.sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${a}${rel}${b}`;
  });
}

const md = fs.readFileSync(DOC, 'utf8');
const files = blocks(md);
const root = path.resolve('.cache', 'docs-test', `adding-a-family-${process.pid}-${Date.now()}`);
const written: string[] = [];
let family: FilterFamily;

beforeAll(async () => {
  for (const [file, text] of files) {
    const out = path.join(root, file.slice('src/families/'.length));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, out.endsWith('.ts') ? pointAtSrc(text, path.resolve(file), out) : text);
    written.push(out);
  }
  const mod = (await import(path.join(root, 'mini', 'index.ts'))) as Record<string, unknown>;
  family = mod.miniFamily as FilterFamily;
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('docs/adding-a-family.md', () => {
  it('has every file of the walkthrough folder: types, config, params, model, rtl, stream, summary, sampler, a preset, index', () => {
    const names = [...files.keys()].map((f) => f.slice(FOLDER.length)).sort();
    expect(names).toEqual(
      [
        'config.ts',
        'index.ts',
        'model.ts',
        'params.ts',
        'presets/mini_k3_s1k.json',
        'rtl.ts',
        'sampler.ts',
        'stream.ts',
        'summary.ts',
        'types.ts',
      ].sort(),
    );
  });

  it('names every member of FilterFamily (a new hook must be explained on the page)', () => {
    const src = fs.readFileSync('src/families/types.ts', 'utf8');
    const body = src.slice(src.indexOf('export interface FilterFamily<'));
    const members = [...body.slice(0, body.indexOf('\n}\n')).matchAll(/^ {2}(\w+)\??[(:]/gm)].map((m) => m[1]!);
    expect(members.length).toBeGreaterThan(20);
    for (const m of members) expect(md, `the page names \`${m}\``).toContain(`\`${m}\``);
  });

  it("its imports inside the folder obey the dependency check's ranks (.dependency-cruiser.cjs)", () => {
    interface PathSpec {
      path: string;
      pathNot?: string;
    }
    const cruiser = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
      forbidden: { name: string; from: PathSpec; to: PathSpec }[];
    };
    const rules = cruiser.forbidden.filter((r) => r.name.startsWith('family-rank-'));
    expect(rules.length).toBeGreaterThan(0);
    const hit = (spec: PathSpec, p: string): boolean =>
      new RegExp(spec.path.replace('$1', 'mini')).test(p) &&
      !(spec.pathNot !== undefined && new RegExp(spec.pathNot).test(p));
    const edges = [...files].flatMap(([file, text]) =>
      [...text.matchAll(/from\s+'\.\/([^']+)\.js'/g)].map((m) => [file, `${FOLDER}${m[1]!}.ts`] as const),
    );
    expect(edges.length).toBeGreaterThan(10);
    const broken = edges.flatMap(([from, to]) =>
      rules.filter((r) => hit(r.from, from) && hit(r.to, to)).map((r) => `${from} -> ${to}: ${r.name}`),
    );
    expect(broken).toEqual([]);
  });

  it("its code typechecks with the project's compiler options: the family object meets FilterFamily", () => {
    const cfgPath = path.resolve('tsconfig.json');
    const parsed = ts.parseJsonConfigFileContent(
      ts.readConfigFile(cfgPath, (p) => ts.sys.readFile(p)).config,
      ts.sys,
      path.dirname(cfgPath),
    );
    const program = ts.createProgram(
      written.filter((f) => f.endsWith('.ts')),
      { ...parsed.options, noEmit: true, incremental: false },
    );
    const problems = written
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => {
        const sf = program.getSourceFile(f)!;
        return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      })
      .map((d) => {
        const where = d.file
          ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1}`
          : '';
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  });

  it('its preset derives; a slice too small is refused naming the field', () => {
    const raw = JSON.parse(files.get(`${FOLDER}presets/mini_k3_s1k.json`)!) as Record<string, unknown>;
    expect(fs.existsSync(path.join(family.presetsDir, 'mini_k3_s1k.json'))).toBe(true);
    expect(family.benchPresets).toContain(raw.name);
    const c = family.derive(parseConfig(family.schema, raw, 'mini'), failer('mini'));
    expect(family.describe(c)).toBe('k=3 sliceBits=1024 n=709');
    expect(() => family.derive(parseConfig(family.schema, { ...raw, sliceBits: 16 }, 'mini'), failer('mini'))).toThrow(
      /field 'sliceBits'/,
    );
  });

  it('its design runs against its model on the compiled simulator through the verifier: 0 mismatches', async () => {
    const raw = JSON.parse(fs.readFileSync(path.join(family.presetsDir, 'mini_k3_s1k.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const f = new Filter(family, family.derive(parseConfig(family.schema, raw, 'mini'), failer('mini')));
    const r = await verifyFilter(f, { ops: 3000, seed: 5, backpressure: 0.2, exactWindow: true, verilator: false });
    expect(r.drive.finished, r.drive.stopReason ?? '').toBe(true);
    expect(r.drive.mismatches).toEqual([]);
    expect(r.drive.responses).toBe(3000);
    expect(r.memory.count, r.memory.mismatches.join('\n')).toBe(0);
    expect(r.memory.checked).toBe(3 * 64);
    // A set filter: no key inserted since the last clear is missed, and some queries were tested.
    expect(r.drive.window?.falseNegatives).toBe(0);
    expect(r.drive.window?.inWindow).toBeGreaterThan(0);
    expect(r.mismatches).toBe(0);
    expect(r.ok).toBe(true);
    // The manifest's latency is the protocol's.
    expect(f.design().meta.latency).toBe(f.protocol().latency);
  });

  it('a snapshot through its control port loads into its model (fromSnapshot), which answers the rest', () => {
    const raw = JSON.parse(files.get(`${FOLDER}presets/mini_k3_s1k.json`)!) as Record<string, unknown>;
    const f = new Filter(family, family.derive(parseConfig(family.schema, raw, 'mini'), failer('mini')));
    const r = modelRoundTrip(f, { before: 600, after: 600, seed: 3 });
    expect(r.mismatches).toEqual([]);
    expect(r.memory.count, r.memory.mismatches.join('\n')).toBe(0);
    expect(r.memoryAtEnd.count, r.memoryAtEnd.mismatches.join('\n')).toBe(0);
  });
});
