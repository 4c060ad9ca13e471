/**
 * Bad input at the command line: every case exits 2 with exactly one line on stderr that names
 * the problem (the field, option, file or line), writes nothing to stdout's files, and leaves its
 * output folder absent or empty. Run in-process through `main` (the same code path as the binary,
 * without a process start per case); two cases also run the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tmpDir } from '../helpers/tools.js';

let dir: string;
const file = (name: string, text: string | Buffer): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
/** A named pipe in the test folder: a path that exists and is not a regular file. */
const fifo = (name: string): string => {
  const p = path.join(dir, name);
  if (!fs.existsSync(p)) execaSync('mkfifo', [p]);
  return p;
};
const config = (name: string, cfg: unknown): string => file(`${name}.json`, JSON.stringify(cfg));
const apbf = { name: 'a', filter: 'apbf', k: 4, l: 3, sliceBits: 4096, keyBits: 64, seed: 1 };
const tbf = { name: 't', filter: 'tbf', k: 4, timersPerBank: 1024, timerBits: 11, window: 256, keyBits: 64, seed: 1 };

/** Runs the CLI in-process; returns the exit code and what it printed. */
async function cli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const e = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const l = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const w = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err.push(String(s).replace(/\n$/, ''));
    return true;
  });
  process.exitCode = undefined;
  try {
    const code = await main(args);
    return { code, stderr: err.join('\n'), stdout: out.join('\n') };
  } finally {
    e.mockRestore();
    l.mockRestore();
    w.mockRestore();
    process.exitCode = undefined;
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

beforeAll(() => {
  dir = tmpDir('bf-bad-');
});

/** [what, args (OUT = a fresh output folder), the message] */
const CASES: [string, () => string[], RegExp][] = [
  [
    '--vcd into a missing folder',
    () => ['simulate', 'apbf_k4_l3', '--ops', '10', '--vcd', '/nonexistent/d/x.vcd'],
    /--vcd: cannot write '\/nonexistent\/d\/x\.vcd': no such directory/,
  ],
  ['-o under /dev/null', () => ['generate', 'apbf_k4_l3', '-o', '/dev/null/x'], /'\/dev\/null' is not a directory/],
  ['-o under /proc', () => ['generate', 'apbf_k4_l3', '-o', '/proc/x'], /cannot create '\/proc\/x'/],
  [
    'experiment -o under /proc',
    () => ['experiment', 'fill-ratio', '--scale', '0.01', '-o', '/proc/x'],
    /--out: cannot create '\/proc\/x'/,
  ],
  [
    'a design whose default export throws',
    () => ['build', file('throws.mts', 'export default () => { throw new Error("boom"); };\n'), '-o', 'OUT'],
    /default export of '.*throws\.mts' threw: boom/,
  ],
  [
    'a design with a syntax error',
    () => ['build', file('syntax.mts', 'export default () => {\n  const x = ;\n};\n'), '-o', 'OUT'],
    /syntax\.mts:2:\d+: Unexpected/,
  ],
  [
    'a design file of another type',
    () => ['build', file('d.txt', 'x'), '-o', 'OUT'],
    /neither an example .* nor a \.ts\/\.js file/,
  ],
  ['a missing design file', () => ['build', 'missing.mts', '-o', 'OUT'], /no such file 'missing\.mts'/],
  [
    'a config named module',
    () => ['generate', config('mod', { ...apbf, name: 'module' }), '-o', 'OUT'],
    /field 'name': is a Verilog keyword/,
  ],
  [
    'a config named wire',
    () => ['generate', config('wire', { ...apbf, name: 'wire' }), '-o', 'OUT'],
    /field 'name': is a Verilog keyword/,
  ],
  [
    'a config name that is no identifier',
    () => ['generate', config('n9', { ...apbf, name: '9lives' }), '-o', 'OUT'],
    /field 'name': must be a legal Verilog identifier/,
  ],
  ['bench --cycles 0', () => ['bench', 'apbf_k4_l3', '--cycles', '0'], /--cycles must be in 1000\.\./],
  [
    'plan --window 1e12',
    () => ['plan', '--filter', 'apbf', '--window', '1e12', '--fp', '0.01'],
    /--window must be a whole number/,
  ],
  [
    'plan --window beyond the limit',
    () => ['plan', '--filter', 'apbf', '--window', String(2 ** 31), '--fp', '0.01'],
    /--window must be in 1\.\./,
  ],
  [
    'plan --max-npws -1',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '0.01', '--max-npws', '-1'],
    /--max-npws must be a positive number/,
  ],
  [
    'plan --fp 2',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '2'],
    /--fp must be a number in \(0, 1\)/,
  ],
  [
    'plan without --fp',
    () => ['plan', '--filter', 'apbf', '--window', '2000'],
    /required option '--fp <p>' not specified/,
  ],
  [
    'plan --filter cuckoo',
    () => ['plan', '--filter', 'cuckoo', '--window', '2000', '--fp', '0.01'],
    /--filter cuckoo: must be one of/,
  ],
  [
    'plan --max-npws for a TBF',
    () => ['plan', '--filter', 'tbf', '--window', '400', '--fp', '0.01', '--max-npws', '0.2'],
    /--max-npws is a constraint of apbf, apbbf, not of tbf/,
  ],
  [
    'plan --items for a windowed filter',
    () => ['plan', '--filter', 'apbf', '--items', '400', '--fp', '0.01'],
    /apbf is planned by --window, not --items|--window is required for apbf/,
  ],
  [
    'plan --lanes for a family with one lane',
    () => ['plan', '--filter', 'a2', '--window', '400', '--fp', '0.01', '--lanes', '2'],
    /--lanes: a2 has one lane only: its halves swap after kappa inserts .* \(lanes: apbf, apbbf, tbf, btbf, .*gbf.*\)/,
  ],
  [
    'plan --lanes 3',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '0.01', '--lanes', '3'],
    /--lanes must be one of 1, 2, 4, 8/,
  ],
  [
    'plan --shards without --lanes',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '0.01', '--shards', '4'],
    /--shards needs --lanes/,
  ],
  [
    'plan --lanes that cannot fit the target',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '0.01', '--lanes', '4'],
    /no sharded apbf meets the goals with --lanes 4: 32 shards: field 'shards'/,
  ],
  [
    'plan --target foo',
    () => ['plan', '--filter', 'apbf', '--window', '2000', '--fp', '0.01', '--target', 'foo'],
    /--target must be one of/,
  ],
  [
    'a JSON array as config',
    () => ['generate', file('arr.json', '[1, 2]'), '-o', 'OUT'],
    /arr\.json: a config is a JSON object/,
  ],
  ['a config that is not JSON', () => ['generate', file('bad.json', '{ "name": '), '-o', 'OUT'], /not valid JSON/],
  [
    'a config with an unknown field',
    () => ['generate', config('colour', { ...apbf, colour: 'red' }), '-o', 'OUT'],
    /unknown field 'colour'/,
  ],
  [
    'a config with an unknown filter',
    () => ['generate', config('cuckoo', { ...apbf, filter: 'cuckoo' }), '-o', 'OUT'],
    /field 'filter': must be one of apbf, apbbf/,
  ],
  [
    'a config without filter',
    () => ['generate', config('nofilter', { name: 'x', k: 4 }), '-o', 'OUT'],
    /field 'filter': must be one of/,
  ],
  ['k = 0', () => ['generate', config('k0', { ...apbf, k: 0 }), '-o', 'OUT'], /field 'k'/],
  ['keyBits 7', () => ['generate', config('kb', { ...apbf, keyBits: 7 }), '-o', 'OUT'], /field 'keyBits'/],
  [
    'sliceBits not a power of two',
    () => ['generate', config('sb', { ...apbf, sliceBits: 4000 }), '-o', 'OUT'],
    /field 'sliceBits': must be a power of two/,
  ],
  [
    'wordBits wider than a column allows',
    () => ['generate', config('wb', { ...apbf, wordBits: 4096 }), '-o', 'OUT'],
    /field 'wordBits': must be at most 2048/,
  ],
  [
    'too few spares',
    () => ['generate', config('sp', { ...apbf, wordBits: 2, spares: 1 }), '-o', 'OUT'],
    /field 'spares': 1 spare bank\(s\) cannot be cleared in time/,
  ],
  [
    'window and k together',
    () => ['generate', config('wk', { ...apbf, window: 2000, fp: 0.01 }), '-o', 'OUT'],
    /field '(window|fp)': only without k and l/,
  ],
  [
    'a TBF whose timers cannot hold TΩ',
    () => ['generate', config('tb', { ...tbf, timerBits: 4 }), '-o', 'OUT'],
    /field 'timerBits'/,
  ],
  [
    'blockSize on a TBF',
    () => ['generate', config('bs', { ...tbf, blockSize: 4 }), '-o', 'OUT'],
    /field 'blockSize': only for filter btbf/,
  ],
  [
    'a TBF scan that cannot keep up',
    () => ['generate', config('pad', { ...tbf, padding: 0, timersPerWord: 1 }), '-o', 'OUT'],
    /field 'padding': the expiry scan cannot keep up/,
  ],
  ['a missing config', () => ['generate', 'nope.json', '-o', 'OUT'], /no such file 'nope\.json'/],
  [
    'a preset name that does not exist',
    () => ['analyze', 'apbf_k9_l9'],
    /config: 'apbf_k9_l9' is neither a preset nor a \.json file \(`bloomforge presets` lists the presets\)/,
  ],
  [
    'experiment sbf-stable-point --preset nope',
    () => ['experiment', 'sbf-stable-point', '--preset', 'nope', '-o', 'OUT'],
    /--preset must be one of stable_d2_k3, /,
  ],
  [
    'experiment sbf-found-by-age --preset nope',
    () => ['experiment', 'sbf-found-by-age', '--preset', 'nope', '-o', 'OUT'],
    /--preset must be one of stable_d2_k3, /,
  ],
  [
    'experiment bitwise-fp --bitwise-preset nope',
    () => ['experiment', 'bitwise-fp', '--bitwise-preset', 'nope', '-o', 'OUT'],
    /--bitwise-preset must be one of bitwise_l3_w448, /,
  ],
  [
    'report --only sbf-stable-point --preset nope',
    () => ['report', '--only', 'sbf-stable-point', '--preset', 'nope', '-o', 'OUT'],
    /--preset must be one of stable_d2_k3, /,
  ],
  [
    'simulate --vcd onto a named pipe (a rename would replace the node, as it would /dev/full)',
    () => ['simulate', 'apbf_k4_l3', '--ops', '100', '--vcd', fifo('trace.vcd')],
    /--vcd: '.*trace\.vcd' is not a regular file \(a device, pipe or socket\)/,
  ],
  ['generate -o an empty path', () => ['generate', 'apbf_k4_l3', '-o', ''], /output: an empty path/],
  [
    'generate --lanes 0 (lanes are 1, 2, 4 or 8)',
    () => ['generate', 'apbf_k4_l3', '--lanes', '0', '-o', 'OUT'],
    /--lanes must be one of 1, 2, 4, 8/,
  ],
  [
    'plan --lanes 3 (lanes are 1, 2, 4 or 8)',
    () => ['plan', '--filter', 'apbf', '--window', '1000', '--fp', '0.01', '--lanes', '3'],
    /--lanes must be one of 1, 2, 4, 8/,
  ],
  ['verify --ops 0', () => ['verify', 'apbf_k4_l3', '--ops', '0'], /--ops must be in 1\.\./],
  [
    'verify --backpressure 1',
    () => ['verify', 'apbf_k4_l3', '--backpressure', '1'],
    /--backpressure must be a number in \[0, 1\)/,
  ],
  ['verify --seed x', () => ['verify', 'apbf_k4_l3', '--seed', 'x'], /--seed must be a whole number/],
  [
    'verify --vcd-to before --vcd-from',
    () => ['verify', 'apbf_k4_l3', '--vcd', path.join(dir, 'v.vcd'), '--vcd-from', '10', '--vcd-to', '5'],
    /--vcd-to 5 is before --vcd-from 10/,
  ],
  [
    '--vcd-from without --vcd',
    () => ['sim', 'counter', '--vcd-from', '10'],
    /--vcd-all, --vcd-from and --vcd-to need --vcd FILE/,
  ],
  ['--vcd naming a folder', () => ['sim', 'counter', '--vcd', dir], /--vcd: '.*' is a directory, not a file/],
  [
    'simulate with a missing workload file',
    () => ['simulate', 'apbf_k4_l3', '--workload', 'nokeys.txt'],
    /--workload: no such file 'nokeys\.txt'/,
  ],
  [
    'simulate with a binary workload file',
    () => ['simulate', 'apbf_k4_l3', '--workload', file('bin.keys', Buffer.from([0, 1, 2, 0xff, 10]))],
    /--workload .*bin\.keys: not a text file/,
  ],
  [
    'simulate with a bad key in the workload',
    () => ['simulate', 'apbf_k4_l3', '--workload', file('keys.txt', '1\nbanana\n')],
    /keys\.txt:2: "banana" is not a key/,
  ],
  [
    'simulate --penalties on an APBF',
    () => ['simulate', 'apbf_k4_l3', '--penalties', 'random'],
    /--penalties applies to tbf, btbf configs, not to apbf/,
  ],
  [
    'simulate --penalties on a TBF without a decision unit',
    () => ['simulate', 'tbf_k4_w256', '--penalties', 'random'],
    /--penalties: tbf_k4_w256 has no decision unit/,
  ],
  [
    'simulate --penalties foo',
    () => ['simulate', 'btbf_k3_w256_b8_decision', '--penalties', 'foo'],
    /--penalties: 'foo' is not 'random'/,
  ],
  ['synth --target foo', () => ['synth', 'apbf_k4_l3', '--target', 'foo'], /--target must be one of/],
  ['synth --seeds 0', () => ['synth', 'apbf_k4_l3', '--seeds', '0'], /--seeds must be a whole number in 1\.\.20/],
  ['table foo', () => ['table', 'foo'], /table: 'foo' is not one of/],
  ['experiment foo', () => ['experiment', 'foo'], /experiment: 'foo' is not one of/],
  ['experiment --engine foo', () => ['experiment', 'fill-ratio', '--engine', 'foo'], /--engine must be model or sim/],
  [
    'an option of another experiment',
    () => ['experiment', 'fill-ratio', '--skews', '1'],
    /--skews is not an option of fill-ratio/,
  ],
  ['an unknown command', () => ['frobnicate'], /unknown command 'frobnicate'/],
  ['an unknown option', () => ['generate', 'apbf_k4_l3', '-o', 'OUT', '--colour', 'red'], /unknown option '--colour'/],
  ['generate without -o', () => ['generate', 'apbf_k4_l3'], /required option '-o, --out <dir>' not specified/],
  [
    '-o naming a file',
    () => ['generate', 'apbf_k4_l3', '-o', file('afile', 'x')],
    /'.*afile' exists and is not a directory/,
  ],
];

describe('bad input: exit 2, one line naming the problem, nothing written', () => {
  it(`there are at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  for (const [what, args, message] of CASES) {
    it(what, async () => {
      const out = path.join(dir, `out-${what.replace(/\W+/g, '_')}`);
      const r = await cli(args().map((a) => (a === 'OUT' ? out : a)));
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^bloomforge: /);
      expect(lines[0]).toMatch(message);
      expect(fs.existsSync(out) ? fs.readdirSync(out) : []).toEqual([]);
    });
  }

  it('the binary prints the same one line and exits 2 (no stack trace)', async () => {
    const bin = path.resolve('bin/bloomforge.mjs');
    for (const args of [
      ['generate', config('mod2', { ...apbf, name: 'module' }), '-o', path.join(dir, 'o1')],
      ['simulate', 'apbf_k4_l3', '--vcd', '/nonexistent/d/x.vcd'],
    ]) {
      const r = await execa(process.execPath, [bin, ...args], { reject: false });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\bat \S+:\d+:\d+/);
    }
  });
});
