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
 * The rpc bundle (issue 15.1): `dasvc rpc` in one CommonJS file, which bin/dasvc.js require()s
 * synchronously: no chunk to resolve and load, and no ES module loader at all on the hot path.
 * Dynamic imports that `dasvc rpc` never takes (the other commands, login, the browser, the mock,
 * check, demo) are left out: each becomes a module that throws, naming it. The entry checks the
 * command with the CLI's own parser and hands anything but rpc to the full bundle
 * (dist/bin/main.js, an ES module: `import()` works from CommonJS, as for the ESM-only packages).
 */
const NOT_ON_THE_RPC_PATH =
  /\/src\/(cli\/commands\/(?!rpc\/)|client\/(login|browser)\.ts$|mock\/|check\/|demo\/)/;
const rpcOnly = {
  name: 'rpc-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const path = join(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      return NOT_ON_THE_RPC_PATH.test(path)
        ? { path, namespace: 'not-on-the-rpc-path' }
        : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'not-on-the-rpc-path' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${relative(root, args.path)} is not in the rpc bundle`)});`,
      loader: 'js',
    }));
  },
};
const rpcEntry = `
import { commandNameIn } from './program.ts';
import { run as runHere } from './main.ts';
export function run(argv, io) {
  if (commandNameIn(argv) === 'rpc') return runHere(argv, io);
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
await build({
  ...common,
  format: 'cjs',
  // The sources are ES modules, strict by nature; `import.meta.url` is this file's URL.
  banner: {
    js: "'use strict';\nconst __dasvcMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  define: { 'import.meta.url': '__dasvcMetaUrl' },
  stdin: { contents: rpcEntry, resolveDir: `${src}cli`, sourcefile: 'rpc-entry.js', loader: 'js' },
  outfile: `${outdir}/rpc.cjs`,
  outdir: undefined,
  plugins: [rpcOnly, tscLayout, lazyChildProcess, externals],
});
