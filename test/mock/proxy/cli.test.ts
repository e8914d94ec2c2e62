// SPEC §6 through the real CLI: `dasvc mock --proxy --record DIR` stopped by SIGTERM mid-recording
// leaves a complete folder that `dasvc mock --fixtures DIR` serves; `--validate` prints one stderr
// line per violation and lists it at /_mock/violations; bad options and a corrupt DIR exit 2, the
// hint naming the flag that gave the folder.
// Processes where a signal is the point; the other runs in this process.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import {
  runDasvc,
  spawnMock,
  startMockInProcess,
  type MockProcess,
} from '../../helpers/mock-process.js';
import { scratchDir } from '../../helpers/scratch.js';

let upstream: MockServer;
const children: MockProcess[] = [];

function tempDir(): string {
  const dir = scratchDir('dasvc-record-');
  return dir;
}

async function spawn(args: string[]): Promise<MockProcess> {
  const child = await spawnMock(args);
  children.push(child);
  return child;
}

/** `dasvc mock --proxy <the upstream> --record DIR` in this process, for its start-up failures. */
function recordInto(dir: string) {
  return runDasvc(['mock', '--port', '0', '--proxy', upstream.url, '--record', dir]);
}

async function mint(
  base: string,
  user: string,
  scope: string,
  client_id = 'demo-client',
): Promise<string> {
  const res = await fetch(`${base}/_mock/tokens`, {
    method: 'POST',
    body: JSON.stringify({ user, scope, client_id }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(base: string, token: string, scope: string, method: string, params?: unknown) {
  const res = await fetch(`${base}/webservice/json/${scope}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params ? { params } : {}) }),
  });
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  upstream = await startMockServer({ port: 0 });
});

afterAll(async () => {
  for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
  await upstream.close();
});

describe('dasvc mock --proxy --record (CLI)', () => {
  it('SIGTERM mid-recording leaves a complete folder; the mock starts again from it', async () => {
    const dir = tempDir();
    const proxy = await spawn(['--proxy', upstream.url, '--record', dir, '--quiet']);
    expect(proxy.stdout()).toBe(`listening on ${proxy.url}\n`);
    const token = await mint(upstream.url, 'alice', 'crm wiki');
    const answers = [
      await call(proxy.url, token, 'crm', 'contacts.get', { id: 2 }),
      await call(proxy.url, token, 'wiki', 'pages.list', { limit: 1 }),
    ];
    // Stopped at once, before the recorder's debounced write: close() must write it.
    expect(await proxy.stop('SIGTERM')).toBe(0);

    const replay = await startMockInProcess(['--fixtures', dir, '--quiet']);
    const replayToken = await mint(replay.url, 'recorded', 'crm wiki', 'recorded-client');
    expect(await call(replay.url, replayToken, 'crm', 'contacts.get', { id: 2 })).toEqual(
      answers[0],
    );
    expect(await call(replay.url, replayToken, 'wiki', 'pages.list', { limit: 1 })).toEqual(
      answers[1],
    );
    expect(await replay.stop()).toBe(130);

    // And once more with the same DIR, stopped by Ctrl-C: the folder grows.
    const again = await startMockInProcess(['--proxy', upstream.url, '--record', dir]);
    await again.waitFor(`recording into ${dir}`);
    await call(again.url, token, 'crm', 'contacts.list');
    expect(await again.stop()).toBe(130);
    const grown = await startMockInProcess(['--fixtures', dir, '--quiet']);
    const grownToken = await mint(grown.url, 'recorded', 'crm', 'recorded-client');
    expect((await call(grown.url, grownToken, 'crm', 'contacts.list')).result).toHaveLength(2);
    expect((await call(grown.url, grownToken, 'crm', 'contacts.get', { id: 2 })).result).toEqual(
      answers[0]!.result,
    );
    expect(await grown.stop()).toBe(130);
  });

  it('a write that fails (a name too long) is one record: line; the rest is written; SIGTERM exits 0', async () => {
    // An installation that answers every call, whatever the instance's name.
    const installation = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
      });
    });
    await new Promise<void>((resolve) => installation.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(installation.address() as AddressInfo).port}`;
    try {
      const dir = tempDir();
      const proxy = await spawn(['--proxy', url, '--record', dir, '--quiet']);
      const long = 'n'.repeat(300);
      for (const instance of [long, 'crm', long, 'wiki'])
        expect((await call(proxy.url, 'any', instance, 'm', { n: 1 })).result).toEqual({
          ok: true,
        });
      expect(await proxy.stop('SIGTERM')).toBe(0);
      const lines = proxy.stderr().trimEnd().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(/^record: cannot write instances\/n+\.openrpc\.json \(ENAMETOOLONG/),
      ]);
      expect(readdirSync(join(dir, 'instances')).sort()).toEqual([
        'crm.openrpc.json',
        'wiki.openrpc.json',
      ]);
      const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8'));
      expect(users.recorded.instances).toEqual(['crm', 'wiki']);
      // The folder is one that --fixtures reads.
      expect([...loadFixtures(dir).instances.keys()].sort()).toEqual(['crm', 'wiki']);
    } finally {
      installation.closeAllConnections();
      await new Promise((resolve) => installation.close(resolve));
    }
  });

  it('--validate: one stderr line per violation, GET /_mock/violations, answers unchanged', async () => {
    const dir = tempDir();
    // The contract alone: no clients.txt or users.json (the upstream has the clients and users).
    mkdirSync(join(dir, 'instances'));
    writeFileSync(
      join(dir, 'instances', 'crm.openrpc.json'),
      JSON.stringify({
        openrpc: '1.2.6',
        info: { title: 'CRM contract', version: '1' },
        methods: [
          {
            name: 'contacts.get',
            params: [{ name: 'id', required: true, schema: { type: 'integer', minimum: 2 } }],
            result: {
              name: 'contact',
              schema: { type: 'object', required: ['phone'] },
            },
          },
        ],
      }),
    );
    const proxy = await startMockInProcess([
      '--proxy',
      upstream.url,
      '--fixtures',
      dir,
      '--validate',
    ]);
    const token = await mint(upstream.url, 'alice', 'crm wiki');
    const direct = await call(upstream.url, token, 'crm', 'contacts.get', { id: 1 });
    expect(await call(proxy.url, token, 'crm', 'contacts.get', { id: 1 })).toEqual(direct);
    await call(proxy.url, token, 'crm', 'contacts.list');
    await call(proxy.url, token, 'wiki', 'pages.list');
    // A method name that would forge a second line is shown on one, its line break escaped.
    await call(proxy.url, token, 'crm', 'evil\ncontract: crm x: forged');
    // A secret the proxy has seen is masked wherever it appears: the method name too.
    await call(proxy.url, token, 'crm', token);
    // A method named "" is a call to no method: its line shows the name as "", not a gap.
    await call(proxy.url, token, 'crm', '');
    const res = await fetch(`${proxy.url}/_mock/violations`);
    const violations = (await res.json()) as Record<string, unknown>[];
    expect(violations.map((v) => `${v.instance} ${v.method}: ${v.problem}`)).toEqual([
      'crm contacts.get: params: id must be >= 2',
      "crm contacts.get: result must have required property 'phone'",
      'crm contacts.list: unknown method',
      'wiki pages.list: unknown instance',
      'crm evil\ncontract: crm x: forged: unknown method',
      'crm [redacted]: unknown method',
      'crm : unknown method',
    ]);
    expect(violations[0]).toMatchObject({ params: { id: 1 }, time: expect.any(String) });
    expect(JSON.stringify(violations)).not.toContain(token);
    expect(await proxy.stop()).toBe(130);
    const lines = proxy
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('contract: '));
    expect(lines).toEqual([
      'contract: crm contacts.get: params: id must be >= 2',
      "contract: crm contacts.get: result must have required property 'phone'",
      'contract: crm contacts.list: unknown method',
      'contract: wiki pages.list: unknown instance',
      'contract: crm evil\\u000acontract: crm x: forged: unknown method',
      'contract: crm [redacted]: unknown method',
      'contract: crm "": unknown method',
    ]);
    expect(proxy.stderr()).not.toContain(token);
  });

  it.each([
    [['--record', 'x'], /--record needs --proxy/],
    [['--proxy', 'http://127.0.0.1:9', '--validate'], /--validate needs --fixtures DIR/],
    [['--proxy', 'ftp://x'], /--proxy must be an http\(s\) URL/],
    [['--proxy', 'http://127.0.0.1:9', '--scrub', 'a'], /--scrub needs --record DIR/],
  ])('bad options exit 2: %j', async (args, message) => {
    const result = await runDasvc(['mock', '--port', '0', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  // Regression: a --record path that cannot be a folder crashed (exit 1, a stack trace), and
  // one under /proc hung in node's recursive mkdir.
  it('a --record path that cannot be a folder exits 2 naming it', async () => {
    const dir = tempDir();
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    for (const [path, code] of [
      [file, 'ENOTDIR'],
      [join(file, 'below'), 'ENOTDIR'],
      ['/proc/no-such-dasvc-dir/x', 'ENOENT'],
    ]) {
      const result = await recordInto(path!);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--record ${path}: cannot make the folder there (${code})`);
      expect(result.stderr).toContain(
        'hint: pass --record a folder this user can create and write, or a new path\n',
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a corrupt file in the record folder exits 2 naming file, JSON pointer and problem', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'instances'));
    writeFileSync(
      join(dir, 'instances', 'crm.openrpc.json'),
      '{"openrpc":"1.2.6","info":{"title":"t","version":"1"},"methods":[{"name":"a","params":{}}]}',
    );
    const result = await recordInto(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /fixture \S*crm\.openrpc\.json: \/methods\/0\/params: must be an array, not a JSON object/,
    );
    writeFileSync(join(dir, 'instances', 'crm.openrpc.json'), '{"openrpc": ');
    const truncated = await recordInto(dir);
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toMatch(/crm\.openrpc\.json: not valid JSON/);
  });

  it('a broken file is named as typed, its hint by the flag that gave the folder', async () => {
    // A relative path, as a user types it: both flags name the file under it, not resolved.
    const dir = relative(process.cwd(), tempDir());
    writeFileSync(join(dir, 'users.json'), '{');
    const recording = await recordInto(dir);
    expect(recording.code).toBe(2);
    expect(recording.stderr).toContain(`fixture ${join(dir, 'users.json')}: not valid JSON`);
    expect(recording.stderr).toContain(
      `hint: recording adds to what ${dir} holds: fix the file, or pass --record a new folder\n`,
    );
    const serving = await runDasvc(['mock', '--port', '0', '--fixtures', dir]);
    expect(serving.code).toBe(2);
    expect(serving.stderr).toContain(`fixture ${dir}${sep}`);
    expect(serving.stderr).toContain(
      `hint: fix the file or point --fixtures at another folder (now ${dir})\n`,
    );
  });
});
