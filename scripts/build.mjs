#!/usr/bin/env node
// `npm run build` (and the first step of `npm test`): dist/ as it ships, from src/, in four steps.
//
// 1. Types: tsc writes the declarations of src/ to dist/declarations/ (what the tests' type-check
//    reads) and no JavaScript; scripts/declarations.mjs ships those the three exports reach, in a
//    few files directly in dist/.
// 2. Code: esbuild bundles src/ into CommonJS files by area (PARTS, scripts/parts.mjs), each
//    module in one of them and run only when something first needs it: dist/dasvc.cjs, which
//    bin/dasvc.js require()s (no ES module loader before a command runs), and the mock's and the
//    other commands' files beside it, read when a command needs their area.
// 3. Helper libraries: each library dasvc bundles becomes a file of its own in
//    dist/vendor/, read the first time the code uses it, so that a command which never needs it
//    never reads it. Their licenses go to dist/LICENSES.txt.
// 4. Exports: `dasvc`, `dasvc/mock` and `dasvc/msw` are ES modules of one line each
//    (dist/index.js, mock.js, msw.js) that take their names from dist/dasvc.cjs: one copy of the
//    code, so a DasvcError thrown by `dasvc/msw` is one of `dasvc`'s.
//
// Every other dependency (the product's own libraries, the keyring binding, ajv, the optional
// peers) loads from node_modules as installed. No dependency's source is edited.
//
// tsc runs beside steps 2 to 4, which do not read its output. With `--no-check` (npm test) it
// writes the same declarations without type-checking src/ (emitting them needs no check), and
// its build info records that the check is still to do, for the next `tsc -b` (npm run
// typecheck); npm test checks src/ beside vitest instead (scripts/test.mjs).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { shipDeclarations } from './declarations.mjs';
import { bundleParts } from './parts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}src/`;
const dist = `${root}dist`;

/** The libraries bundled into dist/vendor/, by the file each becomes. */
const VENDORED = {
  re2js: 're2js.cjs',
  'proper-lockfile': 'proper-lockfile.cjs',
  '@open-rpc/meta-schema': 'open-rpc-meta-schema.cjs',
  '@json-schema-tools/meta-schema': 'json-schema-tools-meta-schema.cjs',
};

/**
 * dasvc's code by area, each module in the first file whose pattern matches its path: what the
 * mock runs once it serves (routes, proxy, dashboard) or only with some options (a state file,
 * quirks, OpenRPC documents, a folder of fixtures of one's own: the validators of its files),
 * read the first time it is used; the mock's start; the commands but rpc and mock, check, types
 * and the demo; the rest (every command's start, the client). A command reads its area's files
 * and the last one (scripts/parts.mjs).
 */
const PARTS = [
  {
    file: 'dasvc-serve.cjs',
    holds:
      /^src\/(mock\/(routes\/|proxy\/(?!proxy-options\.)|msw|adapters\/fetch-adapter\.|core\/(request-handler|faults|rpc-note|state-file|state-journal)\.|fixture-format\/(compile-schemas|json-schema|linear-time|example-match|schema-beside|openrpc)[.-])|schemas\/(state-file|quirks|instance|users)\.validator\.)/,
    lazy: true,
  },
  {
    file: 'dasvc-mock.cjs',
    holds: /^src\/((mock|cli\/commands\/mock)\/|schemas\/(instance|quirks|state-file|users)\.)/,
  },
  { file: 'dasvc-more.cjs', holds: /^src\/((check|typegen|demo)\/|cli\/commands\/(?!rpc\/))/ },
  { file: 'dasvc.cjs', holds: /^src\// },
];

/** What bin/dasvc.js and the exports take from dist/dasvc.cjs's `modules`, by name. */
const ENTRIES = {
  cli: 'src/cli/main.ts',
  library: 'src/index.ts',
  mock: 'src/mock/index.ts',
  msw: 'src/mock/msw-handlers.ts',
};

/** The three exports: their source, and how their ES module takes them from dist/dasvc.cjs. */
const EXPORTS = [
  { file: 'index.js', source: 'index.ts', take: 'modules.library()' },
  { file: 'mock.js', source: 'mock/index.ts', take: 'modules.mock()' },
  // msw is imported as an ES module, which takes a promise (src/mock/msw.ts awaits it too).
  { file: 'msw.js', source: 'mock/msw.ts', take: 'await modules.msw().mswExports()' },
];

// What an earlier build wrote goes first; tsc's own output stays, for its incremental builds.
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist)) {
  if (name !== 'declarations' && !name.endsWith('.tsbuildinfo')) {
    rmSync(join(dist, name), { recursive: true, force: true });
  }
}

// 1. Types: tsc starts here, and its declarations are shipped at the end.
const typesWritten = new Promise((resolve) => {
  const check = process.argv.includes('--no-check') ? ['--noCheck'] : [];
  const tsc = spawn(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, '-b', `${root}tsconfig.build.json`, ...check],
    { stdio: 'inherit' },
  );
  tsc.on('error', () => resolve(1));
  tsc.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  // A build that fails in its code step ends here, and tsc with it, not writing on behind it.
  process.once('exit', () => tsc.exitCode === null && tsc.signalCode === null && tsc.kill());
});

// 2. Code.
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Whitespace, syntax and local names: the less text, the less for Node to read at each start.
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};
/**
 * env-paths, an ES module that a CommonJS file cannot require() on every supported Node, is part
 * of dist/dasvc.cjs; commander, installed as a dependency, loads from node_modules.
 */
const BUNDLED = ['env-paths'];
/**
 * Bundles BUNDLED; reaches each vendored library through a few lines that load its file on
 * first use (so that importing it costs nothing until then); leaves the rest in node_modules.
 */
const require = createRequire(import.meta.url);
const dependencies = {
  name: 'dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      if (BUNDLED.includes(path)) return undefined;
      if (Object.hasOwn(VENDORED, path)) return { path, namespace: 'vendored' };
      return { path, external: true };
    });
    b.onResolve({ filter: /^\.\/vendor\// }, ({ path }) => ({ path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'vendored' }, ({ path }) => {
      const names = Object.keys(require(path)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
      const getters = names.map((n) => `get ${n}() { return load().${n}; }`).join(', ');
      const contents = `let library;\nconst load = () => (library ??= require('./vendor/${VENDORED[path]}'));\nmodule.exports = { ${getters} };\n`;
      return { contents, loader: 'js', resolveDir: dist };
    });
  },
};
/**
 * The dashboard's script is text that src/ holds for the browser (dashboard-script.ts,
 * dashboard-journal.ts), which esbuild does not minify: its comment lines are for whoever reads
 * the source, and are not sent.
 */
const BROWSER_TEXT = /\/src\/mock\/routes\/dashboard-(script|journal)\.ts$/;
const browserText = {
  name: 'browser-text',
  setup(b) {
    b.onLoad({ filter: BROWSER_TEXT }, ({ path }) => ({
      contents: readFileSync(path, 'utf8').replace(/^[ \t]*\/\/ .*\n/gm, ''),
      loader: 'ts',
    }));
  },
};
const code = await bundleParts({
  root,
  dist,
  parts: PARTS,
  entries: ENTRIES,
  options: {
    ...common,
    // Lines of a few hundred characters, not tens of kilobytes: Node prints the line an uncaught
    // error was thrown from, and a library user's terminal would get the whole bundle's start.
    // The vendored libraries' errors are dasvc's to catch: their files keep their long lines.
    lineLimit: 1000,
    // The sources are ES modules, strict by nature; CommonJS has no import.meta: the file's own
    // URL stands for it (src/package-root.ts finds the package one folder up, from src/ and dist/),
    // worked out when first asked for, as most files of a run never ask.
    banner: {
      js: "'use strict';\nconst __importMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
    },
    define: { 'import.meta.url': '__importMeta.url' },
  },
  plugins: [dependencies, browserText],
});

// Each file is strict as a whole (its banner's first line): esbuild still opens every module's
// body with the directive again, which a minifier that knows the file leaves out. Should esbuild
// wrap modules otherwise, the build stops rather than ship them unchanged unnoticed.
for (const { file } of PARTS) {
  const path = `${dist}/${file}`;
  const text = readFileSync(path, 'utf8');
  const bodies = text.match(/=>\{"use strict";?/g)?.length ?? 0;
  if (!text.startsWith("'use strict';\n") || bodies === 0)
    throw new Error(`${file}: no module body opens with "use strict" after the banner's`);
  writeFileSync(path, text.replace(/=>\{"use strict";?/g, '=>{'));
}

// 3. Helper libraries.
/**
 * Modules a vendored library requires that dasvc never has it use, each met by the one of Node
 * that the library's own API takes instead: proper-lockfile's default `fs` is graceful-fs, which
 * also rewires the process's `fs.close` as it loads; dasvc always passes proper-lockfile an `fs`
 * of its own (src/store/file-lock.ts), built on node:fs.
 */
const UNUSED_DEFAULTS = { 'graceful-fs': 'node:fs' };
const unusedDefaults = {
  name: 'unused-defaults',
  setup(b) {
    const names = Object.keys(UNUSED_DEFAULTS).join('|');
    b.onResolve({ filter: new RegExp(`^(${names})$`) }, ({ path }) => ({
      path: UNUSED_DEFAULTS[path],
      external: true,
    }));
  },
};
const libraries = [...code];
for (const [name, file] of Object.entries(VENDORED)) {
  libraries.push(
    await build({
      ...common,
      stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root },
      outfile: `${dist}/vendor/${file}`,
      plugins: [unusedDefaults],
    }),
  );
}
writeFileSync(`${dist}/LICENSES.txt`, notices(libraries));

/** The license of every package whose code a bundle carries; one text for those that share it. */
function notices(results) {
  const packages = new Set();
  for (const { metafile } of results) {
    for (const input of Object.keys(metafile.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match) packages.add(match[1]);
    }
  }
  const byText = new Map();
  for (const dir of [...packages].sort()) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const license = readdirSync(join(root, dir)).find((f) => /^licen[cs]e/i.test(f));
    const text = license ? readFileSync(join(root, dir, license), 'utf8').trim() : pkg.license;
    byText.set(text, [...(byText.get(text) ?? []), `${pkg.name} ${pkg.version}`]);
  }
  const sections = [...byText].map(([text, names]) => `${names.join(', ')}\n\n${text}\n`);
  return `Libraries bundled in dasvc's dist/, and their licenses.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`;
}

// 4. Exports.
for (const { file, source, take } of EXPORTS) {
  const names = await exportedNames(`${src}${source}`);
  writeFileSync(
    `${dist}/${file}`,
    `import { modules } from './dasvc.cjs';\nexport const { ${names.join(', ')} } = ${take};\n`,
  );
}

/** The run-time names a module of src/ exports (its types aside), as esbuild reads them. */
async function exportedNames(entry) {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    write: false,
    metafile: true,
    outdir: dist,
    logLevel: 'warning',
  });
  return Object.values(metafile.outputs)[0].exports.sort();
}

// 1. Types, once tsc has written them.
const tscStatus = await typesWritten;
if (tscStatus !== 0) process.exit(tscStatus);
shipDeclarations({
  from: `${dist}/declarations`,
  to: dist,
  entries: Object.fromEntries(
    EXPORTS.map(({ file, source }) => [
      file.replace(/\.js$/, '.d.ts'),
      source.replace(/\.ts$/, '.d.ts'),
    ]),
  ),
  peers: Object.keys(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).peerDependencies),
});
