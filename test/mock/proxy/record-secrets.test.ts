// SPEC §6: `--record` writes no secret, whatever its shape. Members named like secrets are masked
// at any depth, in any letter case, whatever the value's JSON type; a secret value seen once is
// masked wherever it recurs in the session (positional params, results, other members, base64
// and URL encodings); DIR is 0700 and its files 0600. `/_mock/violations` and the request log
// follow the same rules. The upstream is a second mock whose `vault` instance echoes its params.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { copyFixtures, login, rpc } from '../../helpers/mock-client.js';
import { scratchDir } from '../../helpers/scratch.js';

const POSITIONAL_FIRST = 'p@ss w/rd+0007';

/** Every secret the test sent (or the upstream answered), as the strings that must not appear. */
const secrets = new Set<string>([
  '12345678',
  'arr-secret-0001',
  'old-secret-0002',
  'new-secret-0003',
  '987654321',
  'case-secret-0004',
  'upper-secret-0005',
  'suffix-secret-0006',
  POSITIONAL_FIRST,
  encodeURIComponent(POSITIONAL_FIRST),
  encodeURIComponent(POSITIONAL_FIRST).replace(/%20/g, '+'),
  Buffer.from(POSITIONAL_FIRST).toString('base64'),
  // The upstream's own: a session token in a result, then sent back by the client.
  'sess-ada-xyz-0008',
  'query-secret-0009',
]);

let upstream: MockServer;
let dir: string;
const logLines: string[] = [];
const warnings: string[] = [];
let violations = '';
let journal = '';

/** The vault instance of the upstream: methods taking anything, echoing what they got. */
function upstreamFixtures(): string {
  const fixtures = copyFixtures();
  const any = (name: string) => ({ name, schema: {} });
  writeFileSync(
    join(fixtures, 'instances', 'vault.json'),
    JSON.stringify({
      title: 'Vault',
      methods: [
        {
          name: 'login',
          params: [{ name: 'user', required: true, schema: { type: 'string' } }, any('password')],
          result: { name: 'session', schema: {} },
          handler: 'vault.js#login',
        },
        {
          name: 'store',
          params: ['password', 'Password', 'PASSWORD', 'user_password', 'client_secret'].map(any),
          result: { name: 'stored', schema: {} },
          handler: 'vault.js#echo',
        },
        {
          name: 'echo',
          params: [any('note')],
          result: { name: 'echo', schema: {} },
          handler: 'vault.js#echo',
        },
      ],
    }),
  );
  writeFileSync(
    join(fixtures, 'instances', 'vault.js'),
    `export function login({ params }) {
       return { user: params.user, session_token: 'sess-' + params.user + '-xyz-0008', got: params };
     }
     export function echo({ params }) { return { echo: params, note: String(params.note ?? '') }; }`,
  );
  const users = JSON.parse(readFileSync(join(fixtures, 'users.json'), 'utf8'));
  users.alice.instances.push('vault');
  writeFileSync(join(fixtures, 'users.json'), JSON.stringify(users));
  return fixtures;
}

const call = (method: string, params: unknown, id = 1) => ({ jsonrpc: '2.0', method, params, id });

beforeAll(async () => {
  upstream = await startMockServer({ port: 0, fixtures: upstreamFixtures() });
  // A folder that does not exist yet: the recorder makes it.
  dir = join(scratchDir('dasvc-record-secrets-'), 'recorded');
  const proxy = await startMockServer({
    port: 0,
    proxy: upstream.url,
    record: dir,
    // Every vault call breaks this contract (no such instance): a violation with its params.
    validate: true,
    fixtures: copyFixtures(),
    log: (line) => logLines.push(line),
    warn: (line) => warnings.push(line),
  });
  try {
    const tokens = await login(proxy.url, { scope: 'crm vault' });
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      secrets
        .add(token)
        .add(Buffer.from(token).toString('base64'))
        .add(Buffer.from(token).toString('base64url'));
    }
    const send = async (body: unknown, path = 'vault') => {
      const res = await rpc(proxy.url, path, tokens.access_token, body);
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    // Sent by position first, before anything says it is a password (in another instance too,
    // whose file is written before the password is known)…
    await send(call('contacts.get', [POSITIONAL_FIRST]), 'crm');
    expect(readFileSync(join(dir, 'instances', 'crm.openrpc.json'), 'utf8')).toContain('w/rd');
    await send(call('login', ['ada', POSITIONAL_FIRST]));
    // …then by name, in every shape a password takes.
    await send(call('login', { user: 'ada', password: POSITIONAL_FIRST }));
    await send(call('store', { password: 12345678 }));
    await send(call('store', { password: ['arr-secret-0001'] }));
    await send(call('store', { password: { old: 'old-secret-0002', new: 'new-secret-0003' } }));
    await send(call('store', { client_secret: 987654321 }));
    await send(
      call('store', {
        Password: 'case-secret-0004',
        PASSWORD: 'upper-secret-0005',
        user_password: 'suffix-secret-0006',
      }),
    );
    // The same values again where no name says what they are: positionally, inside other
    // members, encoded, and a token the upstream handed out, sent back.
    await send([
      call('echo', [POSITIONAL_FIRST], 1),
      call('echo', { note: 12345678 }, 2),
      call('echo', { note: `was 987654321, now case-secret-0004` }, 3),
      call('echo', { note: encodeURIComponent(POSITIONAL_FIRST) }, 4),
      call('echo', { note: Buffer.from(POSITIONAL_FIRST).toString('base64') }, 5),
      call('echo', { note: Buffer.from(tokens.access_token).toString('base64') }, 6),
      call('echo', { note: Buffer.from(tokens.refresh_token).toString('base64url') }, 7),
      call('echo', { note: `Basic ${Buffer.from('ada:upper-secret-0005').toString('base64')}` }, 8),
      call('echo', { note: 'sess-ada-xyz-0008' }, 9),
    ]);
    // A query the log shows: masked by name, and by value.
    await send(
      call('echo', { note: 'q' }),
      `vault?user_password=query-secret-0009&debug=${encodeURIComponent(tokens.access_token)}`,
    );
    violations = await (await fetch(`${proxy.url}/_mock/violations`)).text();
    journal = await (await fetch(`${proxy.url}/_mock/journal`)).text();
  } finally {
    await proxy.close();
  }
});

afterAll(async () => {
  await upstream.close();
});

/** Every file under DIR, as bytes. */
function folderBytes(): Buffer {
  return Buffer.concat(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name))),
  );
}

describe('--record writes no secret, whatever its shape', () => {
  it('no secret value, in any shape or encoding, is in any file of DIR', () => {
    const bytes = folderBytes();
    expect(bytes.length).toBeGreaterThan(1000);
    expect(secrets.size).toBeGreaterThanOrEqual(20);
    for (const secret of secrets) {
      expect(bytes.includes(Buffer.from(secret)), `found ${JSON.stringify(secret)}`).toBe(false);
    }
  });

  it('secret members keep their JSON type; the folder still loads and names the calls', () => {
    const vault = loadFixtures(dir).instances.get('vault')!;
    const stored = vault.methods.get('store')!.examples.map((e) => e.params);
    expect(stored).toContainEqual({ password: 0 });
    expect(stored).toContainEqual({ password: ['[redacted]'] });
    expect(stored).toContainEqual({ password: { old: '[redacted]', new: '[redacted]' } });
    expect(stored).toContainEqual({ client_secret: 0 });
    const store = vault.methods.get('store')!;
    expect(Object.fromEntries(store.params.map((p) => [p.name, p.schema]))).toMatchObject({
      password: { type: ['integer', 'array', 'object'] },
      client_secret: { type: 'integer' },
    });
    // A result member named like a secret is masked too.
    const session = vault.methods.get('login')!.examples[0]!.outcome as { result: unknown };
    expect(session.result).toMatchObject({ user: 'ada', session_token: '[redacted]' });
  });

  it('DIR and its folders are 0700, its files 0600', () => {
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const entries = readdirSync(dir, { recursive: true, withFileTypes: true });
    expect(entries.length).toBeGreaterThanOrEqual(4);
    for (const entry of entries) {
      const mode = statSync(join(entry.parentPath, entry.name)).mode & 0o777;
      expect(mode, entry.name).toBe(entry.isDirectory() ? 0o700 : 0o600);
    }
  });

  it('/_mock/violations, the request log, the journal and the warnings hold none either', () => {
    expect(JSON.parse(violations).length).toBeGreaterThan(5);
    expect(logLines.some((line) => line.includes('/webservice/json/vault'))).toBe(true);
    expect(journal).toContain('/webservice/json/vault');
    const shown = [violations, journal, ...logLines, ...warnings].join('\n');
    for (const secret of secrets) {
      expect(shown.includes(secret), `found ${JSON.stringify(secret)}`).toBe(false);
    }
  });
});
