// The package as scripts/build.mjs lays it out: the CLI and the three exports in CommonJS files by
// area (dist/dasvc.cjs, and dasvc-mock.cjs, dasvc-serve.cjs and dasvc-more.cjs, read when a
// command needs their area), and each bundled helper library in a file of its own under dist/vendor/, read the first
// time the code uses it. These run the real executable, as users do, and read Node's module log to
// see which of the package's own files a run loaded.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  freshConfigDir,
  mintTokens,
  ROOT,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';
import { DASHBOARD_SCRIPT } from '../../src/mock/routes/dashboard-script.js';
import { tracked } from '../helpers/children.js';
import { runDasvc, spawnMock } from '../helpers/mock-process.js';
import { scratchDir } from '../helpers/scratch.js';

const mock = startMockForCli();
const TRACE = { NODE_DEBUG: 'module,esm' };
/** conf's own modules in that log: the config file's writer. */
const CONF = /node_modules\/conf\/dist\//;

/** The package's own JavaScript files a run loaded, as Node's module log names them. */
function ownFilesLoaded(stderr: string): string[] {
  const own = new RegExp(`load "${ROOT}/((?:bin|dist)/[^"]+)"`, 'g');
  return [...new Set([...stderr.matchAll(own)].map((m) => m[1]!))].sort();
}

/** A config dir whose default profile holds a pair minted at the mock, expiring in `seconds`. */
async function loggedIn(seconds: number, dir = freshConfigDir()): Promise<string> {
  const pair = await mintTokens(mock.url, 'alice', 'crm');
  const now = Date.now();
  const tokens = {
    accessToken: pair.access_token,
    refreshToken: pair.refresh_token,
    obtainedAt: now,
    expiresAt: now + seconds * 1000,
  };
  const profile = {
    baseUrl: mock.url,
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    tokens,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
    mode: 0o600,
  });
  return dir;
}

/** The default fixtures and alice's OpenRPC instance `shop`: one method, its param a `pattern`. */
function fixturesWithPattern(pattern: string, openrpc: unknown = '1.3.2'): string {
  const dir = scratchDir('dasvc-bundle-fixtures-');
  cpSync(join(ROOT, 'fixtures'), dir, { recursive: true });
  const document = {
    openrpc,
    info: { title: 'Shop', version: '1.0.0' },
    methods: [
      {
        name: 'items.find',
        params: [{ name: 'sku', required: true, schema: { type: 'string', pattern } }],
        result: { name: 'item', schema: { type: 'object' } },
      },
    ],
  };
  writeFileSync(join(dir, 'instances/shop.openrpc.json'), JSON.stringify(document));
  const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8'));
  users.alice.instances.push('shop');
  writeFileSync(join(dir, 'users.json'), JSON.stringify(users));
  return dir;
}

describe('the CLI file', () => {
  it('answers dasvc rpc from dist/dasvc.cjs alone; a due refresh takes the lock library too', async () => {
    const fresh = await loggedIn(3600);
    const ok = await runCliProcess(['rpc', 'crm', 'contacts.list'], fresh, { env: TRACE });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ownFilesLoaded(ok.stderr)).toEqual(['bin/dasvc.js', 'dist/dasvc.cjs']);
    expect(JSON.parse(ok.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 1 })]),
    );
    // Reading the config file takes no conf, its writer.
    expect(ok.stderr).not.toMatch(CONF);
    const due = await loggedIn(5);
    const before = JSON.parse(readFileSync(join(due, 'config.json'), 'utf8'));
    const refreshed = await runCliProcess(['rpc', 'crm', 'contacts.list'], due, { env: TRACE });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(ownFilesLoaded(refreshed.stderr)).toEqual([
      'bin/dasvc.js',
      'dist/dasvc.cjs',
      'dist/vendor/proper-lockfile.cjs',
    ]);
    // Without graceful-fs, its default fs (dasvc hands it one): the process's fs stays as it is.
    const lockLibrary = readFileSync(join(ROOT, 'dist/vendor/proper-lockfile.cjs'), 'utf8');
    expect(lockLibrary).not.toMatch(/gracefulify|graceful-fs/);
    expect(readFileSync(join(ROOT, 'dist/LICENSES.txt'), 'utf8')).not.toContain('graceful-fs');
    expect(refreshed.stderr).toMatch(CONF);
    const after = JSON.parse(readFileSync(join(due, 'config.json'), 'utf8'));
    expect(after.profiles.default.tokens.refreshToken).not.toBe(
      before.profiles.default.tokens.refreshToken,
    );
  });

  it('makes no process.stdin for rpc unless its params come from stdin', async () => {
    // Tells on stderr when the process first asks for process.stdin (making it costs a start).
    const hook = join(scratchDir('dasvc-stdin-'), 'stdin-made.cjs');
    writeFileSync(
      hook,
      `const made = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', { configurable: true, get() {
  require('node:fs').writeSync(2, 'process.stdin made\\n');
  const stdin = made.get.call(process);
  Object.defineProperty(process, 'stdin', { configurable: true, value: stdin });
  return stdin;
} });`,
    );
    const env = { NODE_OPTIONS: `--require ${hook}` };
    const dir = await loggedIn(3600);
    const plain = await runCliProcess(['rpc', 'crm', 'contacts.list'], dir, { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('process.stdin made');
    const piped = await runCliProcess(['rpc', 'crm', 'contacts.get', '-'], dir, {
      env,
      input: '{"id":1}',
    });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toContain('process.stdin made');
  });

  it('finds the config file in the OS config folder when DASVC_CONFIG_DIR is not set', async () => {
    const xdg = freshConfigDir();
    const dir = join(xdg, 'dasvc-nodejs');
    mkdirSync(dir);
    await loggedIn(3600, dir);
    const env = { ...TRACE, DASVC_CONFIG_DIR: undefined, XDG_CONFIG_HOME: xdg };
    const ok = await runCliProcess(['rpc', 'crm', 'contacts.list'], dir, { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ownFilesLoaded(ok.stderr)).toEqual(['bin/dasvc.js', 'dist/dasvc.cjs']);
  });

  it('serves dasvc mock, its later parts too: the handler, the fixtures, the proxy (undici)', async () => {
    const upstream = await spawnMock(['--quiet'], { env: TRACE });
    let proxy: Awaited<ReturnType<typeof spawnMock>> | undefined;
    try {
      proxy = await spawnMock(['--quiet', '--proxy', upstream.url], { env: TRACE });
      const { url } = proxy;
      const call = (token: string) =>
        fetch(`${url}/webservice/json/crm`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
        });
      // A token minted at the proxy's own control API: the upstream does not know it.
      const minted = await mintTokens(url, 'alice', 'crm');
      expect((await call(minted.access_token)).status).toBe(401);
      const through = await call((await mintTokens(upstream.url, 'alice', 'crm')).access_token);
      expect(through.status).toBe(200);
      expect(await through.json()).toMatchObject({ jsonrpc: '2.0', id: 1 });
    } finally {
      await proxy?.stop();
      await upstream.stop();
    }
    // The default fixtures have neither patterns nor OpenRPC documents: no helper library.
    for (const server of [upstream, proxy!]) {
      expect(ownFilesLoaded(server.stderr())).toEqual([
        'bin/dasvc.js',
        'dist/dasvc-mock.cjs',
        'dist/dasvc-serve.cjs',
        'dist/dasvc.cjs',
      ]);
    }
  });

  it('listens having read the start of the mock alone; what serves requests comes after', async () => {
    // stdout and stderr into one pipe, both written synchronously: the module log and the
    // listening line in the order they happened.
    const child = tracked(
      spawn('sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, BIN, 'mock', '--port', '0'], {
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...TRACE },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let output = '';
    const exited = new Promise((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/^dashboard: /m.test(output)) resolve();
      });
    });
    child.kill('SIGTERM');
    await exited;
    const listening = output.search(/^listening on /m);
    expect(listening).toBeGreaterThan(0);
    expect(ownFilesLoaded(output.slice(0, listening))).toEqual([
      'bin/dasvc.js',
      'dist/dasvc-mock.cjs',
      'dist/dasvc.cjs',
    ]);
  });

  it('checks fixture schemas with the bundled RE2 and OpenRPC meta-schema', async () => {
    const lookahead = await runDasvc(['mock', '--fixtures', fixturesWithPattern('^(?=A)')]);
    expect(lookahead.code).toBe(2);
    expect(lookahead.stderr).toMatch(/cannot run on the linear-time engine \(RE2\)/);
    const unversioned = await runDasvc(['mock', '--fixtures', fixturesWithPattern('^A', 5)]);
    expect(unversioned.code).toBe(2);
    expect(unversioned.stderr).toMatch(/shop\.openrpc\.json.*\/openrpc/);
    const served = await spawnMock(['--quiet', '--fixtures', fixturesWithPattern('^A-\\d+$')], {
      env: TRACE,
    });
    try {
      const token = (await mintTokens(served.url, 'alice', 'shop')).access_token;
      const find = (sku: string) =>
        fetch(`${served.url}/webservice/json/shop`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'items.find', params: { sku }, id: 1 }),
        }).then((r) => r.json() as Promise<{ error?: { code: number } }>);
      expect((await find('B-1')).error?.code).toBe(-32602);
      expect((await find('A-1')).error?.code).not.toBe(-32602);
    } finally {
      await served.stop();
    }
    expect(ownFilesLoaded(served.stderr())).toEqual([
      'bin/dasvc.js',
      'dist/dasvc-mock.cjs',
      'dist/dasvc-serve.cjs',
      'dist/dasvc.cjs',
      'dist/vendor/json-schema-tools-meta-schema.cjs',
      'dist/vendor/open-rpc-meta-schema.cjs',
      'dist/vendor/re2js.cjs',
    ]);
  });
});

describe('the other commands', () => {
  it('run from their own file, with the code of the others', async () => {
    const dir = freshConfigDir();
    const status = await runCliProcess(['token', 'status'], dir, { env: TRACE });
    expect(status.code).toBe(3);
    expect(status.stderr).toMatch(/not logged in \(profile default\)/);
    expect(ownFilesLoaded(status.stderr)).toEqual([
      'bin/dasvc.js',
      'dist/dasvc-more.cjs',
      'dist/dasvc.cjs',
    ]);
  });
});

describe('the links between the files', () => {
  it('hand every module over as plain values, not as getters a call must go through', async () => {
    const script = `
const results = {};
for (const file of ['dasvc.cjs', 'dasvc-mock.cjs', 'dasvc-serve.cjs', 'dasvc-more.cjs']) {
  const { modules } = require(${JSON.stringify(join(ROOT, 'dist'))} + '/' + file);
  for (const [key, take] of Object.entries(modules)) {
    const exported = take();
    const getters = Object.keys(exported).filter((k) => Object.getOwnPropertyDescriptor(exported, k).get);
    results[file + ' ' + key] = { names: Object.keys(exported).length, getters };
  }
}
console.log(JSON.stringify(results));`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', script], (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout),
      ),
    );
    const results = JSON.parse(out) as Record<string, { names: number; getters: string[] }>;
    expect(Object.keys(results).length).toBeGreaterThan(20);
    for (const [module, { names, getters }] of Object.entries(results)) {
      expect({ module, getters }).toEqual({ module, getters: [] });
      expect(names, module).toBeGreaterThan(0);
    }
  });
});

describe('the exports', () => {
  it('share one copy of the code: dasvc/mock throws the DasvcError of dasvc', async () => {
    const script = `
import { DasvcError } from ${JSON.stringify(join(ROOT, 'dist/index.js'))};
import { createMockApp } from ${JSON.stringify(join(ROOT, 'dist/mock.js'))};
try { createMockApp({ accessTtl: 'soon' }); } catch (error) {
  console.log(JSON.stringify({ shared: error instanceof DasvcError, kind: error.kind, name: error.name }));
}`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(out)).toEqual({ shared: true, kind: 'usage', name: 'UsageError' });
  });
});

describe('the dashboard', () => {
  it('sends its script without the comment lines of the source, and otherwise as written', async () => {
    const script = `
const { modules } = require(${JSON.stringify(join(ROOT, 'dist/dasvc.cjs'))});
const app = modules.mock().createMockApp();
app(new Request('http://127.0.0.1/_mock/'))
  .then((res) => res.text())
  .then((html) => app.close().then(() => console.log(JSON.stringify(html))));`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', script], (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout),
      ),
    );
    const html = JSON.parse(out) as string;
    const sent = /<script[^>]*>([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
    const lines = DASHBOARD_SCRIPT.split('\n');
    const comments = lines.filter((line) => /^\s*\/\/ /.test(line));
    expect(comments.length).toBeGreaterThan(5);
    expect(sent).toBe(lines.filter((line) => !comments.includes(line)).join('\n'));
    expect(() => new Script(sent)).not.toThrow();
  });
});
