/**
 * bloomforge as an npm dependency: the package builds (`npm run build`), another project that
 * depends on it compiles the README's library example with `tsc` against the package's types and
 * runs it with node; the example's output says the model and the simulator found the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tools.js';

describe('import { … } from "bloomforge" in another project', () => {
  it("compiles and runs the README's example", async () => {
    const root = path.resolve('.');
    const build = await execa('npm', ['run', 'build'], { cwd: root, reject: false, all: true });
    expect(build.exitCode, build.all).toBe(0);
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const m = /<!-- library-example -->\s*```ts\n([\s\S]*?)```\s*<!-- \/library-example -->/.exec(readme);
    expect(m, 'the README has the library example').not.toBeNull();
    const dir = tmpDir('bf-lib-');
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'uses-bloomforge', type: 'module', private: true }),
    );
    fs.mkdirSync(path.join(dir, 'node_modules'));
    // As npm links a local dependency: node_modules/bloomforge -> the package (its own dependencies
    // resolve from its own node_modules).
    fs.symlinkSync(root, path.join(dir, 'node_modules', 'bloomforge'));
    fs.writeFileSync(path.join(dir, 'example.ts'), m![1]!);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
        },
        files: ['example.ts'],
      }),
    );
    const tsc = await execa(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
      cwd: dir,
      reject: false,
      all: true,
    });
    expect(tsc.exitCode, tsc.all).toBe(0);
    const run = await execa(process.execPath, ['example.js'], { cwd: dir, reject: false, all: true });
    expect(run.exitCode, run.all).toBe(0);
    expect(run.stdout).toMatch(/^dedup: \d+ lines of Verilog, latency 10$/m);
    expect(run.stdout).toMatch(/^model: 0x1234 found$/m);
    expect(run.stdout).toMatch(/^simulator: 0x1234 found$/m);
  });
});
