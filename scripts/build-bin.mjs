#!/usr/bin/env node
// Builds the CLI bundle that bin/dasvc.js runs (issue 15): src/cli/main.ts and everything it
// imports, as a small entry plus chunks that its dynamic import()s load on demand, in dist/bin/.
// dist/ itself stays tsc's output for the library exports. Dependencies stay external (node_modules),
// except commander, which every command needs (one file instead of seven at start-up).
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
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
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
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

/** Every dependency but commander stays in node_modules. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path === 'commander' ? undefined : { path: args.path, external: true },
    );
  },
};

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `${src}cli/main.ts` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  plugins: [tscLayout, externals],
  logLevel: 'warning',
  legalComments: 'none',
  // commander is CommonJS and require()s node builtins: give the ESM chunks a require().
  banner: {
    js: "import { createRequire as __dasvcRequire } from 'node:module'; const require = __dasvcRequire(import.meta.url);",
  },
});
