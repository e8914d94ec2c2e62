// SPEC §6 bounds of `--record`: an example past its size is recorded truncated (valid JSON, marked
// x-truncated) with a `record:` line while the client gets the whole answer; a write that fails
// (an instance name too long for the file system) is one `record:` line and the rest of the
// folder keeps being written; params nested too deep to record are said, and so is an answer
// too large to be read at all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { EXAMPLE_LIMIT } from '../../../src/mock/proxy/bounds.js';
import { replayOf } from '../../helpers/replay.js';
import { scratchDir } from '../../helpers/scratch.js';

/** About 5 MB of JSON: rows past the 1 MiB bound, and a total beside them. */
const ROWS = Array.from({ length: 50_000 }, (_, i) => ({ id: i, name: `row number ${i}` }));
const LONG_NAME = 'i'.repeat(300);

/** A small gzip answer that decodes past what the taps read (64 MiB): a decompression bomb. */
const BOMB = gzipSync(
  Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"result":"'),
    Buffer.alloc(65 * 1024 * 1024, 97),
    Buffer.from('"}'),
  ]),
);

const MIB_OF_A = Buffer.alloc(1024 * 1024, 97);
/** Settles when the upstream's endless answer is closed (its client went away). */
let endlessEnded: () => void = () => undefined;
const endlessClosed = new Promise<void>((resolve) => (endlessEnded = resolve));

let installation: Server;
let installationUrl: string;
let proxy: MockServer;
let dir: string;
const warnings: string[] = [];

/** The installation: answers every call with a result (a big one for `export`). */
function answer(call: { method: string; params?: unknown; id?: unknown }): unknown {
  const result =
    call.method === 'export'
      ? { total: ROWS.length, rows: ROWS }
      : call.method === 'tree'
        ? nested(150)
        : { ok: true };
  return { jsonrpc: '2.0', id: call.id, result };
}

function nested(levels: number): unknown {
  return JSON.parse(nestedText(levels));
}

/** `{"down":{"down":…{"leaf":true}…}}` as text: deeper than JSON.stringify can go. */
function nestedText(levels: number): string {
  return `${'{"down":'.repeat(levels)}{"leaf":true}${'}'.repeat(levels)}`;
}

async function rpc(instance: string, method: string, params?: unknown) {
  const res = await fetch(`${proxy.url}/webservice/json/${instance}`, {
    method: 'POST',
    headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
    body:
      typeof params === 'string'
        ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"id":1,"params":${params}}`
        : JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params ? { params } : {}) }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { result: unknown };
}

beforeAll(async () => {
  installation = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      if (body.method === 'endless') {
        // Past what the taps read, then never an end: it ends when the client goes.
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 65; i += 1) res.write(MIB_OF_A);
        res.on('close', () => endlessEnded());
        return;
      }
      if (body.method === 'huge') {
        // Chunked (no length known ahead), past what the taps read.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0","id":1,"result":"');
        for (let i = 0; i < 65; i += 1) res.write(MIB_OF_A);
        res.end('"}');
        return;
      }
      if (body.method === 'bomb') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(BOMB);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
    });
  });
  await new Promise<void>((resolve) => installation.listen(0, '127.0.0.1', resolve));
  installationUrl = `http://127.0.0.1:${(installation.address() as AddressInfo).port}`;
  dir = scratchDir('dasvc-record-bounds-');
  proxy = await startMockServer({
    port: 0,
    proxy: installationUrl,
    record: dir,
    warn: (line) => warnings.push(line),
  });
});

afterAll(async () => {
  await proxy.close();
  installation.closeAllConnections();
  await new Promise((resolve) => installation.close(resolve));
});

describe('--record bounds', () => {
  it('records an answer past the size bound truncated; the client gets it whole', async () => {
    const whole = await rpc('crm', 'export', { all: true });
    expect(whole.result).toEqual({ total: ROWS.length, rows: ROWS });
    expect(warnings.filter((line) => line.startsWith('record: crm export: '))).toEqual([
      'record: crm export: answer larger than 1 MiB of JSON; recorded truncated (x-truncated)',
    ]);
    const text = readFileSync(join(dir, 'instances', 'crm.openrpc.json'), 'utf8');
    // Valid JSON, about the bound in size (the rest of the document is small).
    expect(Buffer.byteLength(text)).toBeLessThan(EXAMPLE_LIMIT * 1.5);
    const method = JSON.parse(text).methods.find((m: { name: string }) => m.name === 'export');
    const example = method.examples[0];
    expect(example['x-truncated']).toBe(true);
    const cut = example.result.value as { total: number; rows: unknown[] };
    expect(cut.total).toBe(ROWS.length);
    expect(cut.rows.length).toBeGreaterThan(1000);
    expect(cut.rows).toEqual(ROWS.slice(0, cut.rows.length));
    // The schema still says what the whole answer was made of.
    expect(method.result.schema).toMatchObject({
      required: ['total', 'rows'],
      properties: { rows: { type: 'array', items: { required: ['id', 'name'] } } },
    });
    // A later call of the same instance is written beside the cut one.
    await rpc('crm', 'small', { n: 1 });
    expect(readFileSync(join(dir, 'instances', 'crm.openrpc.json'), 'utf8')).toContain('"small"');
  });

  it('an answer past what the taps read, plain or decoded, passes on whole and is not recorded', async () => {
    // An instance that no folder could hold (its name is none) is not told of either.
    const odd = await fetch(`${proxy.url}/webservice/json/odd%20name`, {
      method: 'POST',
      headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'huge', id: 1 }),
    });
    expect((await odd.arrayBuffer()).byteLength).toBe(65 * 1024 * 1024 + 36);
    expect(warnings.filter((line) => line.includes('odd'))).toEqual([]);
    for (const [instance, method] of [
      ['huges', 'huge'],
      ['bombs', 'bomb'],
    ]) {
      const res = await fetch(`${proxy.url}/webservice/json/${instance}`, {
        method: 'POST',
        headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method, id: 1 }),
      });
      expect(res.status).toBe(200);
      // The client gets the answer as sent (fetch decodes the compressed one).
      expect((await res.arrayBuffer()).byteLength, method).toBe(65 * 1024 * 1024 + 36);
      expect(existsSync(join(dir, 'instances', `${instance}.openrpc.json`)), method).toBe(false);
      // Never silent: the line names the call that was not recorded.
      expect(warnings.filter((line) => line.startsWith(`record: ${instance} `))).toEqual([
        `record: ${instance} ${method}: answer larger than 64 MiB; not recorded`,
      ]);
    }
  });

  it('an endless answer streams on once past that bound, and ends upstream with its client', async () => {
    const res = await fetch(`${proxy.url}/webservice/json/endless`, {
      method: 'POST',
      headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'endless', id: 1 }),
    });
    expect(res.status).toBe(200);
    // Read without waiting for an end that never comes: the proxy holds no more than its bound.
    const reader = res.body!.getReader();
    let read = 0;
    while (read < 65 * 1024 * 1024) read += (await reader.read()).value?.byteLength ?? 0;
    await reader.cancel();
    await endlessClosed;
    expect(existsSync(join(dir, 'instances', 'endless.openrpc.json'))).toBe(false);
    expect(warnings.filter((line) => line.startsWith('record: endless '))).toEqual([
      'record: endless endless: answer larger than 64 MiB; not recorded',
    ]);
  });

  it('the folder with a truncated example loads and replays it', async () => {
    const replay = await replayOf(dir, 'crm');
    try {
      const answer = await replay.call('crm', 'export', { all: true });
      const result = answer.result as { total: number; rows: unknown[] };
      expect(result.total).toBe(ROWS.length);
      expect(result.rows.length).toBeLessThan(ROWS.length);
    } finally {
      await replay.close();
    }
  });

  it('a name too long for the file system is one line; the rest of the folder is written', async () => {
    const before = warnings.length;
    await rpc(LONG_NAME, 'm', { n: 1 });
    await rpc('wiki', 'pages.list', { limit: 1 });
    await rpc(LONG_NAME, 'm', { n: 2 });
    await rpc('other', 'thing');
    const lines = warnings.slice(before);
    expect(lines).toEqual([
      expect.stringMatching(/^record: cannot write instances\/i+\.openrpc\.json \(ENAMETOOLONG/),
    ]);
    expect(readdirSync(join(dir, 'instances')).sort()).toEqual([
      'crm.openrpc.json',
      'other.openrpc.json',
      'wiki.openrpc.json',
    ]);
    const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8'));
    expect(users.recorded.instances).toEqual(['crm', 'other', 'wiki']);
    expect([...loadFixtures(dir).instances.keys()].sort()).toEqual(['crm', 'other', 'wiki']);
  });

  it('an instance or method named by a secret is said and not written, not even as a name', async () => {
    await rpc('crm', 'login', { user: 'ada', password: 'named-secret-1' });
    const before = warnings.length;
    await rpc('named-secret-1', 'm');
    await rpc('crm', 'named-secret-1');
    expect(warnings.slice(before)).toEqual([
      'record: instance [redacted]: its name holds a secret; not recorded',
      "record: crm [redacted]: the method's name holds a secret; not recorded",
    ]);
    const names = readdirSync(dir, { recursive: true }).join('\n');
    const texts = readdirSync(join(dir, 'instances'))
      .map((f) => readFileSync(join(dir, 'instances', f), 'utf8'))
      .join('');
    expect(`${names}${texts}${readFileSync(join(dir, 'users.json'), 'utf8')}`).not.toContain(
      'named-secret-1',
    );
    expect(loadFixtures(dir).instances.has('crm')).toBe(true);
  });

  it('a call to method "" passes and is not written: a document names no method ""', async () => {
    const before = warnings.length;
    expect((await rpc('crm', '')).result).toEqual({ ok: true });
    expect(warnings.slice(before)).toEqual([]);
    expect(loadFixtures(dir).instances.get('crm')!.methods.has('')).toBe(false);
  });

  it('params nested too deep to record are said, the answer passes', async () => {
    const before = warnings.length;
    expect((await rpc('crm', 'deep', nested(150))).result).toEqual({ ok: true });
    // Deeper than JSON.stringify itself can go.
    expect((await rpc('crm', 'deeper', nestedText(20_000))).result).toEqual({ ok: true });
    expect(warnings.slice(before)).toEqual([
      'record: crm deep: params nested more than 100 levels deep; not recorded',
      'record: crm deeper: params nested more than 100 levels deep; not recorded',
    ]);
    // An answer nested too deep is recorded cut at the bound, and said.
    expect((await rpc('crm', 'tree')).result).toEqual(nested(150));
    expect(warnings.at(-1)).toBe(
      'record: crm tree: answer nested more than 100 levels deep; recorded truncated (x-truncated)',
    );
    // A depth within the bound is recorded as it came.
    await rpc('crm', 'deep', nested(90));
    const crm = loadFixtures(dir).instances.get('crm')!;
    expect(crm.methods.get('deep')!.examples.map((e) => e.params)).toEqual([nested(90)]);
    expect(crm.methods.has('deeper')).toBe(false);
    const tree = crm.methods.get('tree')!.examples[0]!;
    expect(tree.truncated).toBe(true);
    // 100 levels of `down`, then an empty object where the rest was.
    let at = (tree.outcome as { result: unknown }).result as { down?: unknown };
    for (let i = 0; i < 100; i++) at = at.down as { down?: unknown };
    expect(at).toEqual({});
  });
});
