#!/usr/bin/env node
// What the mock's explanations cost. Requests per second of `dasvc mock`
// with the log on (text), off (--quiet) and --json, against the code without reasons (a
// baseline commit built into a temp folder), for an accepted call (contacts.list) and a refused
// one (401); then the server's RSS after 100 000 requests with a full journal (default size and
// --journal-size 100000). Servers run as their own processes; autocannon drives them.
// Usage: node scripts/bench-mock-log.mjs [--duration 3] [--rounds 3] [--connections 32]
//        [--baseline fdfbea4] [--requests 100000]
/* global fetch, Request, performance */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    // main just before the explanations landed: the same mock without notes, reasons or ring buffer.
    baseline: { type: 'string', default: 'f27004f' },
    inprocess: { type: 'string', default: '20000' },
    requests: { type: 'string', default: '100000' },
  },
});

/** `dasvc/mock` of the package in `dir`, as its exports map names it (the baseline's dist/ differs). */
function mockEntry(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return join(dir, pkg.exports['./mock'].default);
}

const BODY = JSON.stringify({ jsonrpc: '2.0', method: 'contacts.list', id: 1 });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The baseline commit's tree, built with this checkout's node_modules; removed at exit. */
function buildBaseline(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-bench-baseline-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  execFileSync('sh', ['-c', `git -C "${root}" archive ${rev} | tar -x -C "${dir}"`]);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(dir, 'tsconfig.build.json'),
  ]);
  return dir;
}

/** Starts `dasvc <globals> mock --port 0 <flags>` from `dir`; its stdout is drained like a terminal's. */
function startMock(dir, globals, flags) {
  const child = spawn(
    process.execPath,
    [join(dir, 'bin/dasvc.js'), ...globals, 'mock', '--port', '0', ...flags],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  return new Promise((resolve, reject) => {
    let first = '';
    const onData = (chunk) => {
      first += chunk;
      const url = /listening on (\S+)/.exec(first)?.[1];
      if (!url) return;
      child.stdout.off('data', onData);
      child.stdout.resume(); // the log is read and dropped, as a terminal would take it
      resolve({
        url,
        child,
        stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
      });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mock exited ${code}`)));
  });
}

async function mint(url) {
  const res = await fetch(`${url}/_mock/tokens`, {
    method: 'POST',
    body: JSON.stringify({ user: 'alice', scope: 'crm' }),
  });
  return (await res.json()).access_token;
}

function load(url, token, options) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/webservice/json/crm`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: BODY,
        connections: Number(args.connections),
        ...options,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const baselineDir = buildBaseline(args.baseline);

// In-process first: the handler alone (no sockets, no other process), where the cost of building
// notes and log lines is least hidden by noise. Log on = a log function that drops the line.
{
  const apps = {};
  for (const [name, dir] of [
    ['baseline', baselineDir],
    ['reasons', root],
  ]) {
    const { createMockApp } = await import(mockEntry(dir));
    for (const log of [true, false]) {
      const app = createMockApp(log ? { log: () => {} } : {});
      const minted = await app(
        new Request('http://127.0.0.1/_mock/tokens', {
          method: 'POST',
          body: JSON.stringify({ user: 'alice', scope: 'crm' }),
        }),
      );
      apps[`${name}, log ${log ? 'on ' : 'off'}`] = {
        app,
        token: (await minted.json()).access_token,
      };
    }
  }
  const n = Number(args.inprocess);
  const times = {};
  for (let round = 0; round < Number(args.rounds) * 2 + 1; round++) {
    for (const [key, { app, token }] of Object.entries(apps)) {
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const bearer = i % 2 === 0 ? token : 'nope'; // half accepted, half refused
        const res = await app(
          new Request('http://127.0.0.1/webservice/json/crm', {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}` },
            body: BODY,
          }),
        );
        await res.arrayBuffer();
      }
      (times[key] ??= []).push(n / ((performance.now() - started) / 1000));
    }
  }
  console.log(`in-process handler, ${n} requests per round (half 200, half 401), median req/s`);
  for (const key of Object.keys(apps)) {
    const rps = median(times[key]);
    const ref = median(times[key.replace('reasons', 'baseline')]);
    const delta = key.startsWith('reasons')
      ? `  ${((rps / ref - 1) * 100).toFixed(1)} % vs baseline`
      : '';
    console.log(`  ${key.padEnd(18)} ${rps.toFixed(0).padStart(7)} req/s${delta}`);
  }
  console.log('');
}
const MODES = [
  { name: 'baseline, log on', dir: baselineDir, globals: [], flags: [] },
  { name: 'reasons,  log on', dir: root, globals: [], flags: [] },
  { name: 'reasons,  --json', dir: root, globals: ['--json'], flags: [] },
  { name: 'baseline, --quiet', dir: baselineDir, globals: [], flags: ['--quiet'] },
  { name: 'reasons,  --quiet', dir: root, globals: [], flags: ['--quiet'] },
];
const WORKLOADS = [
  { name: 'contacts.list 200', token: 'valid' },
  { name: 'refused 401', token: 'nope' },
];

console.log(
  `req/s, median of ${args.rounds} rounds of ${args.duration} s, ${args.connections} connections (baseline ${args.baseline})`,
);
const results = new Map();
for (let round = 0; round < Number(args.rounds); round++) {
  // Interleaved rounds: a machine that slows down mid-run slows every mode alike.
  for (const mode of MODES) {
    const mock = await startMock(mode.dir, mode.globals, mode.flags);
    const token = await mint(mock.url);
    for (const w of WORKLOADS) {
      const r = await load(mock.url, w.token === 'valid' ? token : 'nope', {
        duration: Number(args.duration),
      });
      const key = `${mode.name} | ${w.name}`;
      results.set(key, [...(results.get(key) ?? []), r.requests.average]);
    }
    await mock.stop();
  }
}
for (const w of WORKLOADS) {
  console.log(`\n${w.name}`);
  const base = (quiet) =>
    median(results.get(`baseline, ${quiet ? '--quiet' : 'log on'} | ${w.name}`));
  for (const mode of MODES) {
    const rps = median(results.get(`${mode.name} | ${w.name}`));
    const ref = base(mode.flags.includes('--quiet'));
    const delta = mode.dir === root ? `  ${((rps / ref - 1) * 100).toFixed(1)} % vs baseline` : '';
    console.log(`  ${mode.name.padEnd(18)} ${rps.toFixed(0).padStart(7)} req/s${delta}`);
  }
}

/** VmRSS of a process in MiB. */
function rssMiB(pid) {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return kb / 1024;
}

console.log(`\nRSS after ${args.requests} requests (half accepted, half refused), journal full`);
for (const mode of [
  { name: 'baseline (1000 kept)', dir: baselineDir, flags: ['--quiet'] },
  { name: 'reasons, --journal-size 1000', dir: root, flags: ['--quiet'] },
  {
    name: 'reasons, --journal-size 100000',
    dir: root,
    flags: ['--quiet', '--journal-size', '100000'],
  },
]) {
  const mock = await startMock(mode.dir, [], mode.flags);
  const token = await mint(mock.url);
  const half = Math.floor(Number(args.requests) / 2);
  await load(mock.url, token, { amount: half });
  await load(mock.url, 'nope', { amount: half });
  const journal = await (await fetch(`${mock.url}/_mock/journal?limit=1`)).json();
  const started = performance.now();
  await (await fetch(`${mock.url}/_mock/journal?limit=1000`)).arrayBuffer();
  const readMs = performance.now() - started;
  console.log(
    `  ${mode.name.padEnd(32)} ${rssMiB(mock.child.pid).toFixed(1).padStart(6)} MiB` +
      (journal.size
        ? `  (journal ${journal.size} kept; reading the last 1000: ${readMs.toFixed(1)} ms)`
        : ''),
  );
  await mock.stop();
}

// RSS includes whatever the heap grew to under load; what the journal keeps is the heap that
// survives a full GC, measured in a child with --expose-gc driving createMockApp in process.
const RETAINED = `
const [mod, size, n] = process.argv.slice(1);
const { createMockApp } = await import(mod);
const app = createMockApp(size === '0' ? {} : { journalSize: Number(size) });
const minted = await app(new Request('http://127.0.0.1/_mock/tokens', { method: 'POST', body: JSON.stringify({ user: 'alice', scope: 'crm' }) }));
const token = (await minted.json()).access_token;
const body = JSON.stringify({ jsonrpc: '2.0', method: 'contacts.list', id: 1 });
globalThis.gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < Number(n); i++) {
  const res = await app(new Request('http://127.0.0.1/webservice/json/crm?x=' + i, { method: 'POST', headers: { authorization: 'Bearer ' + (i % 2 ? token : 'nope') }, body }));
  await res.arrayBuffer();
}
globalThis.gc();
const kept = process.memoryUsage().heapUsed - before;
// The app is used after the measurement, so that the collector cannot free it before.
const { entries } = await (await app(new Request('http://127.0.0.1/_mock/journal?limit=1'))).json();
console.log((kept / 1048576).toFixed(1), entries.length);
`;
console.log(`\nheap kept after ${args.requests} in-process requests and a full GC`);
for (const [name, dir, size] of [
  ['baseline (1000 kept)', baselineDir, '0'],
  ['reasons, journalSize 1000', root, '1000'],
  ['reasons, journalSize 100000', root, '100000'],
]) {
  const mib = execFileSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', RETAINED, mockEntry(dir), size, args.requests],
    { encoding: 'utf8' },
  )
    .trim()
    .split(' ')[0];
  console.log(`  ${name.padEnd(32)} ${mib.padStart(6)} MiB`);
}
