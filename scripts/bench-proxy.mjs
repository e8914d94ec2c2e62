#!/usr/bin/env node
// What `dasvc mock --proxy` adds in front of an installation. The same upstream (`dasvc mock`,
// authenticated crm contacts.list) is called directly and through a proxying `dasvc mock
// --proxy`, in this run, on 127.0.0.1: the added latency per call (sequential calls on one
// keep-alive connection, median) and req/s under load (autocannon).
// For scale, the same through the smallest possible proxy (node:http + undici, no journal, no
// taps): what the machine allows three processes on its cores. Upstream, proxy and load
// generator are separate processes. Under load each server's CPU time per request is read from
// /proc (Linux): the proxy's CPU per proxied request against the upstream's own per request is
// the steadier figure on a shared machine, where req/s moves with whatever else runs. Direct,
// proxied and bare runs alternate for `--rounds` rounds; each figure is the median of its rounds.
// Usage: node scripts/bench-proxy.mjs [--duration 3] [--connections 20] [--calls 2000] [--rounds 5]
/* global fetch */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    calls: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
  },
});

/** `dasvc mock --port 0 --quiet …`; resolves with its URL and child once it listens. */
function startMock(extra) {
  const child = spawn(
    process.execPath,
    [`${root}bin/dasvc.js`, 'mock', '--port', '0', '--quiet', ...extra],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return listening(child);
}

/**
 * The smallest proxy: node:http in, undici's dispatch API out (raw headers, no body stream), the
 * answer collected and written in one piece; no hop-by-hop handling beyond Host and Connection.
 */
const BARE_PROXY = `
const { createServer } = require('node:http');
const { Pool } = require('undici');
const pool = new Pool(process.argv[1], { keepAliveTimeout: 10000 });
const hop = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding']);
const skip = new Set([...hop, 'content-length']); // undici sets the length of what it sends
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const headers = [];
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) if (!skip.has(raw[i].toLowerCase())) headers.push(raw[i], raw[i + 1]);
    const body = [];
    let status = 0;
    const answer = [];
    pool.dispatch({ path: req.url, method: req.method, headers, body: Buffer.concat(chunks) }, {
      onConnect() {},
      onError() { res.writeHead(502).end(); },
      onHeaders(s, h) {
        status = s;
        for (let i = 0; i < h.length; i += 2) {
          const name = h[i].toString('latin1');
          if (!hop.has(name.toLowerCase())) answer.push(name, h[i + 1].toString('latin1'));
        }
        return true;
      },
      onData(c) { body.push(c); return true; },
      onComplete() { res.writeHead(status, answer); res.end(Buffer.concat(body)); },
    });
  });
});
server.keepAliveTimeout = 10000;
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

function startBareProxy(upstream) {
  const child = spawn(process.execPath, ['-e', BARE_PROXY, upstream], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return listening(child);
}

/** Resolves with the URL of the child's `listening on` line. */
function listening(child) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('mock did not start')), 15_000);
    const onData = (chunk) => {
      buffer += chunk;
      const url = /listening on (\S+)\n/.exec(buffer)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ url, child });
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`mock exited ${code}`)));
  });
}

const BODY = '{"jsonrpc":"2.0","method":"contacts.list","id":1}';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A keep-alive connection to `base` and a function that times one API call on it (ms). */
function caller(base, token) {
  const dispatcher = new Agent({ connections: 1 });
  const options = {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: BODY,
    dispatcher,
  };
  const url = `${base}/webservice/json/crm`;
  return {
    async call() {
      const started = process.hrtime.bigint();
      const res = await request(url, options);
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    },
    close: () => dispatcher.close(),
  };
}

/**
 * Median ms per call of `calls` sequential API calls to each target, one keep-alive connection
 * each, after 200 warm-up calls; the targets take turns in blocks of 100 calls, so that whatever
 * else the machine does falls on all of them alike.
 */
async function sequential(targets, token, calls) {
  const callers = targets.map((base) => caller(base, token));
  for (const c of callers) for (let i = 0; i < 200; i++) await c.call();
  const times = callers.map(() => []);
  for (let done = 0; done < calls; done += 100) {
    for (const [i, c] of callers.entries()) {
      for (let k = 0; k < Math.min(100, calls - done); k++) times[i].push(await c.call());
    }
  }
  await Promise.all(callers.map((c) => c.close()));
  return times.map(median);
}

/** CPU time (user + system) of a process so far, in ms (from /proc: Linux only). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * autocannon against the API (non-2xx answers count as errors): req/s, and the CPU µs per request
 * of each process in `pids` (by name) and of the load generator (this process).
 */
async function load(base, token, pids, duration = Number(args.duration)) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const self = process.cpuUsage();
  const result = await autocannon({
    url: `${base}/webservice/json/crm`,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: BODY,
    connections: Number(args.connections),
    duration,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  const total = Math.max(1, result.requests.total);
  const cpuUs = {};
  for (const [name, pid] of Object.entries(pids)) {
    cpuUs[name] = ((cpuMs(pid) - before[name]) * 1000) / total;
  }
  const used = process.cpuUsage(self);
  cpuUs.loader = (used.user + used.system) / total;
  return { rps: total / result.duration, cpuUs };
}

const upstream = await startMock([]);
const proxy = await startMock(['--proxy', upstream.url]);
const bare = await startBareProxy(upstream.url);
try {
  const minted = await fetch(`${upstream.url}/_mock/tokens`, {
    method: 'POST',
    body: JSON.stringify({ user: 'alice', scope: 'crm' }),
  });
  const { access_token: token } = await minted.json();
  const calls = Number(args.calls);
  const [direct, proxied, bareCall] = await sequential(
    [upstream.url, proxy.url, bare.url],
    token,
    calls,
  );
  const added = proxied - direct;
  // Under load, each process once before the figures (the JIT's work is not counted).
  for (const url of [upstream.url, proxy.url, bare.url]) await load(url, token, {}, 1);
  const runs = { direct: [], proxied: [], bare: [] };
  for (let round = 0; round < Number(args.rounds); round++) {
    runs.direct.push(await load(upstream.url, token, { upstream: upstream.child.pid }));
    runs.proxied.push(
      await load(proxy.url, token, { upstream: upstream.child.pid, proxy: proxy.child.pid }),
    );
    runs.bare.push(
      await load(bare.url, token, { upstream: upstream.child.pid, proxy: bare.child.pid }),
    );
  }
  const rps = (name) => median(runs[name].map((r) => r.rps));
  const cpu = (name, who) => median(runs[name].map((r) => r.cpuUs[who]));
  // Each round's proxied run against the direct run just before it (paired: the machine's other
  // load drifts between rounds more than within one).
  const ratios = (name) => runs[name].map((r, i) => r.rps / runs.direct[i].rps);
  const ratio = median(ratios('proxied'));
  const mark = (ok) => (ok ? 'ok' : 'MISSED');
  console.log(
    `latency per call (median of ${calls} sequential): direct ${direct.toFixed(3)} ms, ` +
      `through --proxy ${proxied.toFixed(3)} ms, added ${added.toFixed(3)} ms ` +
      `(goal < 1 ms: ${mark(added < 1)}); bare node:http+undici proxy adds ` +
      `${(bareCall - direct).toFixed(3)} ms`,
  );
  console.log(
    `req/s (${args.connections} connections, ${args.duration} s, ${args.rounds} alternating rounds, ` +
      `medians): direct ${Math.round(rps('direct'))}, through --proxy ${Math.round(rps('proxied'))}, ` +
      `bare proxy ${Math.round(rps('bare'))}; proxied/direct per round ` +
      `${ratios('proxied')
        .map((r) => r.toFixed(2))
        .join(', ')}: median ${ratio.toFixed(2)}x ` +
      `(goal >= 0.5x: ${mark(ratio >= 0.5)}); bare proxy ${median(ratios('bare')).toFixed(2)}x`,
  );
  const us = (n) => `${n.toFixed(1)} µs`;
  const up = cpu('direct', 'upstream');
  console.log(
    `CPU per request under load: upstream ${us(up)} (direct run), ` +
      `--proxy ${us(cpu('proxied', 'proxy'))} = ${(cpu('proxied', 'proxy') / up).toFixed(2)}x ` +
      `the upstream's, bare proxy ${us(cpu('bare', 'proxy'))} = ` +
      `${(cpu('bare', 'proxy') / up).toFixed(2)}x; load generator ` +
      `${us(cpu('direct', 'loader'))} direct, ${us(cpu('proxied', 'loader'))} proxied`,
  );
  // What these CPU costs allow on 2 idle cores: each process is one thread (at most one core)
  // and all of them share the two.
  const ceiling = (...costs) => Math.min(1 / Math.max(...costs), 2 / costs.reduce((a, b) => a + b));
  const directMax = ceiling(up, cpu('direct', 'loader'));
  const bound = (name) =>
    ceiling(cpu(name, 'upstream'), cpu(name, 'proxy'), cpu(name, 'loader')) / directMax;
  console.log(
    `on 2 idle cores these CPU costs would allow at most: --proxy ${bound('proxied').toFixed(2)}x, ` +
      `bare proxy ${bound('bare').toFixed(2)}x the direct req/s`,
  );
  process.exitCode = added < 1 && ratio >= 0.5 ? 0 : 1;
} finally {
  // The proxies first: an upstream gone under them would only add noise to their last answers.
  proxy.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
}
