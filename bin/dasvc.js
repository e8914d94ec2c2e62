#!/usr/bin/env node
// The executable (SPEC §1). `--version` is answered here, before any module loads (target: within
// 1.1× `node -e 0`); everything else runs the CLI bundle (dist/bin/, built by
// scripts/build-bin.mjs: a small entry whose chunks load as commands need them), or tsc's output
// when the bundle is not built.
const argv = process.argv;
const fs = process.getBuiltinModule('node:fs');
if (argv.length === 3 && argv[2] === '--version') {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  // A closed pipe (`dasvc --version | true`) ends quietly with exit 0, as in src/cli/closed-pipe.ts.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  process.stdout.write(`${pkg.version}\n`);
} else {
  const bundle = new URL('../dist/bin/main.js', import.meta.url);
  const { run } = await import(fs.existsSync(bundle) ? bundle.href : '../dist/cli/main.js');
  process.exitCode = await run(argv);
}
