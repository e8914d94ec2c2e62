#!/usr/bin/env node
/* global __dirname, require */
'use strict';
// The executable (SPEC §1), CommonJS (bin/package.json): `--version` is answered here without
// reading more than package.json, so it costs little more than starting node. Everything else
// runs the CLI from dist/dasvc.cjs, which scripts/build.mjs bundles in CommonJS: loaded
// synchronously, no ES module loader.
const argv = process.argv;
if (argv.length === 3 && argv[2] === '--version') {
  const fs = process.getBuiltinModule('node:fs');
  const pkg = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8'));
  // fs.writeSync, not process.stdout: creating that stream is a good part of a start-up. A closed
  // pipe (`dasvc --version | true`) ends quietly with exit 0, as in src/cli/closed-pipe.ts.
  try {
    fs.writeSync(1, `${pkg.version}\n`);
  } catch (error) {
    if (error.code !== 'EPIPE') {
      // As src/cli/closed-pipe.ts: one line, no stack trace (`> /dev/full`).
      process.exitCode = 1;
      try {
        fs.writeSync(2, `dasvc: cannot write the result to stdout (${error.code})\n`);
      } catch {
        // nowhere left to say it
      }
    }
  }
} else {
  // Node 22.8 and later keep the code they compile for dasvc's files and its dependencies in a
  // cache of their own (NODE_COMPILE_CACHE, else a folder in the OS temp folder), so that later
  // starts skip compiling it; Node 20 has no such cache, and compiles at every start.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose
  require('../dist/dasvc.cjs')
    .modules.cli()
    .run(argv)
    .then((code) => {
      process.exitCode = code;
    });
}
