#!/usr/bin/env node
/* global fetch, performance */
// CLI start-up figures, each a ratio measured in this one run: N interleaved runs per command,
// medians compared, against their goals and against the same commands of a baseline commit
// (built into a temp folder), so that a change says what it costs. Needs a build
// (`npm run build`). Usage: node scripts/bench-cli.mjs [N] [--baseline 1e7e2f6] (`--baseline=`:
// none)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/dasvc.js');
const { values: args, positionals } = parseArgs({
  // A commit whose CLI and library are separate bundles: what the one bundle is weighed against.
  options: { baseline: { type: 'string', default: '1e7e2f6' } },
  allowPositionals: true,
});
const runs = Number(positionals[0] ?? 21);

/** The baseline commit's executable, built with this checkout's node_modules; removed at exit. */
function baselineBin(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-bench-cli-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync('sh', ['-c', `git -C "${root}" archive ${rev} | tar -x -C "${dir}"`]);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: 'ignore' });
  return join(dir, 'bin/dasvc.js');
}

function timeRun(args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs every case once per round, rounds interleaved so drift hits all alike. */
async function measure(cases) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const [args, env] of Object.values(cases)) await timeRun(args, env); // warm the caches
  for (let i = 0; i < runs; i++) {
    for (const [name, [args, env]] of Object.entries(cases))
      times[name].push(await timeRun(args, env));
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

function startMock() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'mock', '--port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.on('error', reject);
  });
}

const line = (label, a, b, target) => {
  const ratio = a / b;
  const verdict =
    target === undefined
      ? ''
      : ratio <= target
        ? `  ok (target ≤ ${target}×)`
        : `  MISSED by ${((ratio / target - 1) * 100).toFixed(0)} % (target ≤ ${target}×)`;
  console.log(
    `${label.padEnd(58)} ${a.toFixed(0).padStart(4)} ms / ${b.toFixed(0).padStart(4)} ms = ${ratio.toFixed(2)}×${verdict}`,
  );
  return target === undefined || ratio <= target;
};

const mock = await startMock();
let ok = true;
let dir;
try {
  const minted = await (
    await fetch(`${mock.url}/_mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'alice', scope: 'crm wiki' }),
    })
  ).json();
  dir = mkdtempSync(join(tmpdir(), 'dasvc-bench-'));
  const now = Date.now();
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      activeProfile: 'default',
      profiles: {
        default: {
          baseUrl: mock.url,
          clientId: 'demo-client',
          clientSecret: 'demo-secret',
          scope: 'crm wiki',
          params: 'query',
          tokens: {
            accessToken: minted.access_token,
            refreshToken: minted.refresh_token,
            expiresAt: now + Number(minted.expires_in) * 1000,
            obtainedAt: now,
          },
        },
      },
    }),
    { mode: 0o600 },
  );
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'contacts.list', params: {}, id: 1 });
  const target = `${mock.url}/webservice/json/crm`;
  const fetchScript = join(dir, 'bare-fetch.mjs');
  writeFileSync(
    fetchScript,
    `const r = await fetch(${JSON.stringify(target)}, { method: 'POST', headers: { authorization: 'Bearer ' + process.env.T, 'content-type': 'application/json' }, body: ${JSON.stringify(body)} });\nprocess.stdout.write(JSON.stringify((await r.json()).result) + '\\n');\n`,
  );
  const httpScript = join(dir, 'bare-http.mjs');
  writeFileSync(
    httpScript,
    `import { request } from 'node:http';\nconst req = request(${JSON.stringify(target)}, { method: 'POST', headers: { authorization: 'Bearer ' + process.env.T, 'content-type': 'application/json' } }, (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(t).result) + '\\n')); });\nreq.end(${JSON.stringify(body)});\n`,
  );
  const env = { DASVC_CONFIG_DIR: dir, CI: '1', T: minted.access_token };
  const then = args.baseline ? baselineBin(args.baseline) : undefined;
  const baseline = then
    ? {
        baseVersion: [[then, '--version'], {}],
        baseHelp: [[then, '--help'], {}],
        baseRpcProfile: [[then, 'rpc', 'crm', 'contacts.list'], env],
      }
    : {};
  const m = await measure({
    ...baseline,
    nodeE0: [['-e', '0'], {}],
    version: [[bin, '--version'], {}],
    help: [[bin, '--help'], {}],
    rpcProfile: [[bin, 'rpc', 'crm', 'contacts.list'], env],
    rpcEnvToken: [
      [bin, 'rpc', 'crm', 'contacts.list'],
      { ...env, DASVC_TOKEN: minted.access_token, DASVC_BASE_URL: mock.url },
    ],
    bareFetch: [[fetchScript], env],
    bareHttp: [[httpScript], env],
  });
  console.log(`medians of ${runs} interleaved runs`);
  ok = line('dasvc --version vs node -e 0', m.version, m.nodeE0, 1.1) && ok;
  // No goal of its own: the first command most people run, and the whole CLI file's load.
  line('dasvc --help vs node -e 0', m.help, m.nodeE0);
  ok =
    line(
      'dasvc rpc crm contacts.list (profile) vs bare node:http script',
      m.rpcProfile,
      m.bareHttp,
      1.3,
    ) && ok;
  line(
    'dasvc rpc crm contacts.list (DASVC_TOKEN) vs bare node:http script',
    m.rpcEnvToken,
    m.bareHttp,
  );
  line('bare fetch script vs bare node:http script', m.bareFetch, m.bareHttp);
  if (then) {
    console.log(`against the same commands at ${args.baseline}:`);
    line('dasvc --version', m.version, m.baseVersion);
    line('dasvc --help', m.help, m.baseHelp);
    line('dasvc rpc crm contacts.list (profile)', m.rpcProfile, m.baseRpcProfile);
  }
} finally {
  mock.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
process.exitCode = ok ? 0 : 1;
