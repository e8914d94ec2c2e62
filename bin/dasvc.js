#!/usr/bin/env node
/* global __dirname, require */
'use strict';
// The executable (SPEC §1), CommonJS (bin/package.json): `--version` is answered here without
// starting the ES module loader at all (target: within 1.1× `node -e 0`). Everything else runs the
// CLI bundle (dist/bin/, built by scripts/build-bin.mjs: a small entry whose chunks load as
// commands need them, and rpc.cjs and mock.cjs for `dasvc rpc` and `dasvc mock`), or tsc's
// output when the bundle is not built.
const argv = process.argv;
const fs = process.getBuiltinModule('node:fs');
const isVersion = argv.length === 3 && argv[2] === '--version';
const bundle = isVersion ? undefined : bundleFor(argv);
if (isVersion) {
  const pkg = JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, 'utf8'));
  // fs.writeSync, not process.stdout: creating that stream costs ~10 ms of start-up. A closed
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
} else if (bundle) {
  // `dasvc rpc` and `dasvc mock` have one-file CommonJS bundles of their own, loaded
  // synchronously; each checks the command with the CLI's own parser and hands anything else to
  // the full bundle, so a cheap guess is enough here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose
  require(bundle)
    .run(argv)
    .then((code) => {
      process.exitCode = code;
    });
} else {
  const bundled = fs.existsSync(`${__dirname}/../dist/bin/main.js`);
  import(bundled ? '../dist/bin/main.js' : '../dist/cli/main.js').then(async ({ run }) => {
    process.exitCode = await run(argv);
  });
}

/** The one-command bundle the first `rpc` or `mock` in argv points to, if it is built. */
function bundleFor(args) {
  const command = args.slice(2).find((arg) => arg === 'rpc' || arg === 'mock');
  const file = command && `${__dirname}/../dist/bin/${command}.cjs`;
  return file && fs.existsSync(file) ? file : undefined;
}
