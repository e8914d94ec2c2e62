#!/usr/bin/env node
// Builds the CLI bundle that bin/dasvc.js runs (issue 15): src/cli/main.ts and everything it
// imports, as a small entry plus chunks that its dynamic import()s load on demand, in dist/bin/.
// dist/ itself stays tsc's output for the library exports. Dependencies stay external (node_modules),
// except commander, which every command needs (one file instead of seven at start-up). Beside it,
// dist/bin/rpc.cjs: everything `dasvc rpc` needs in one CommonJS file (see rpcOnly below).
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}src/`;
const outdir = `${root}dist/bin`;

/**
 * Source files compute paths from `import.meta.url` as tsc lays them out (dist/<dir>/<file>.js):
 * each file's `import.meta.url` becomes the URL its tsc output would have, so `../../package.json`
 * and the default fixtures resolve alike from a chunk in dist/bin/.
 */
const tscLayout = {
  name: 'tsc-layout-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/, namespace: 'file' }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      if (args.path === `${src}cli/commander.ts`) {
        // In the bundle, commander is part of the chunk: a plain import, no require() needed.
        contents =
          "import { Command } from 'commander';\nexport { Command };\nexport type Command = import('commander').Command;\n";
      } else if (contents.includes('import.meta.url')) {
        const asBuilt = relative(outdir, `${root}dist/${relative(src, args.path)}`).replace(
          /\.ts$/,
          '.js',
        );
        contents = contents.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(asBuilt)}, import.meta.url).href`,
        );
      }
      return { contents, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * commander require()s child_process at load for executable subcommands, which dasvc has none of:
 * loaded on first use instead (~2 ms of start-up, issue 15.1). Should a commander release word it
 * otherwise, the build says so and the bundle merely loads it as before.
 */
const CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      if (!contents.includes(CHILD_PROCESS)) {
        return {
          contents,
          warnings: [{ text: 'commander no longer requires child_process as expected' }],
        };
      }
      const lazy =
        "const childProcess = { get spawn() { return require('node:child_process').spawn; } };";
      return { contents: contents.replace(CHILD_PROCESS, lazy), loader: 'js' };
    });
  },
};

/** Every dependency but commander stays in node_modules. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path === 'commander' ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * One-command bundles (issue 15.1): `dasvc rpc` and `dasvc mock` each in one CommonJS file, which
 * bin/dasvc.js require()s synchronously: no chunk to resolve and load (`dasvc mock` loaded 29 of
 * them before it listened), and no ES module loader at all on the hot path. Dynamic imports the
 * command never takes (the other commands; for rpc also login, the browser, the mock, check and
 * the demo) are left out: each becomes a module that throws, naming it. The entry checks the
 * command with the CLI's own parser and hands any other to the full bundle (dist/bin/main.js, an
 * ES module: `import()` works from CommonJS, as for the ESM-only packages).
 */
const OFF_THE_PATH = {
  rpc: /\/src\/(cli\/commands\/(?!rpc\/)|client\/(login|browser)\.ts$|mock\/|check\/|demo\/)/,
  // The mock's own modules (its request handler, fixtures, proxy, recorder) load after it
  // listens, as in the full bundle: inside this file they cost a parse only when first used.
  mock: /\/src\/(cli\/commands\/(?!mock\/)|client\/(login|browser)\.ts$|check\/|demo\/)/,
};
const onlyOnThePath = (command) => ({
  name: `${command}-only`,
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = join(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      return OFF_THE_PATH[command].test(path) ? { path, namespace: 'off-the-path' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'off-the-path' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${relative(root, args.path)} is not in the ${command} bundle`)});`,
      loader: 'js',
    }));
  },
});
const commandEntry = (command) => `
import { commandNameIn } from './program.ts';
import { run as runHere } from './main.ts';
export function run(argv, io) {
  if (commandNameIn(argv) === ${JSON.stringify(command)}) return runHere(argv, io);
  // The full bundle beside this file (a URL, not a literal: esbuild leaves it to run time).
  return import(new URL('./main.js', import.meta.url).href).then((m) => m.run(argv, io));
}
`;

const common = {
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
  // commander is CommonJS and require()s node builtins: give the ESM chunks a require().
  banner: {
    js: "import { createRequire as __dasvcRequire } from 'node:module'; const require = __dasvcRequire(import.meta.url);",
  },
};

await rm(outdir, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { main: `${src}cli/main.ts` },
  splitting: true,
  chunkNames: 'chunk-[hash]',
  plugins: [tscLayout, lazyChildProcess, externals],
});
for (const command of Object.keys(OFF_THE_PATH)) {
  await build({
    ...common,
    format: 'cjs',
    // The sources are ES modules, strict by nature; `import.meta.url` is this file's URL.
    banner: {
      js: "'use strict';\nconst __dasvcMetaUrl = require('node:url').pathToFileURL(__filename).href;",
    },
    define: { 'import.meta.url': '__dasvcMetaUrl' },
    stdin: {
      contents: commandEntry(command),
      resolveDir: `${src}cli`,
      sourcefile: `${command}-entry.js`,
      loader: 'js',
    },
    outfile: `${outdir}/${command}.cjs`,
    outdir: undefined,
    plugins: [onlyOnThePath(command), tscLayout, lazyChildProcess, externals],
  });
}
