import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  clearJournal,
  control,
  expectNoLeaksAfterAll,
  freshConfigDir,
  journalEntries,
  loggedInBeforeAll,
  mintTokens,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
const configDir = loggedInBeforeAll(mock, 'crm');

describe('dasvc rpc', () => {
  it('prints the result compactly when piped', async () => {
    const result = await runCli(['rpc', 'crm', 'contacts.list'], configDir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(JSON.parse(result.stdout))}\n`);
    expect(JSON.parse(result.stdout).map((c: { id: number }) => c.id)).toEqual([1, 2]);
    expect(result.stderr).toBe('');
  });

  it('reads params in every form of the grammar', async () => {
    const idFile = join(configDir(), 'id.json');
    writeFileSync(idFile, '1');
    const textFile = join(configDir(), 'id.txt');
    writeFileSync(textFile, '1');
    for (const params of [['{"id":1}'], ['id:=1'], [`id:=@${idFile}`]]) {
      const result = await runCli(['rpc', 'crm', 'contacts.get', ...params], configDir());
      expect(result.code, `${params.join(' ')}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: 1, name: 'Ada Lovelace' });
    }
    // key=value and key=@file send strings: the mock checks the declared integer type (-32602).
    for (const params of [['id=1'], [`id=@${textFile}`]]) {
      const result = await runCli(['rpc', 'crm', 'contacts.get', ...params], configDir());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error -32602: /m);
    }
  });

  // Regression: a bad placement was only noticed when a refresh happened to be due.
  it('refuses a bad DASVC_PARAMS with exit 2 even when no refresh is due', async () => {
    const result = await runCli(['rpc', 'crm', 'contacts.list'], configDir(), {
      env: { DASVC_PARAMS: 'bogus' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DASVC_PARAMS');
    expect(result.stdout).toBe('');
  });

  it('reads params from stdin with -', async () => {
    const result = await runCli(['rpc', 'crm', 'contacts.get', '-'], configDir(), {
      input: '{"id": 2}',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 2 });
  });

  it('prints a JSON-RPC error as "error <code>: <message>" (and data), exit 1', async () => {
    const other = await runCli(['rpc', 'crm', 'contacts.get', 'id:=3'], configDir());
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(/^error -32004: Contact not found$/m);
    expect(other.stderr).toContain('data: {"id":3}');
    expect(other.stderr).not.toContain('Alan');
    const missing = await runCli(['rpc', 'crm', 'no.such.method'], configDir());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error -32601: /m);
  });

  // Regression: the service's words reached the terminal raw: an escape sequence in a message
  // (here the method name the mock quotes back) could clear the screen or retitle the window.
  it('shows control characters of a service message, never sends them to the terminal', async () => {
    const method = 'contacts.x\u001b[2J\u0007\u009b\u202e';
    const result = await runCli(['rpc', 'crm', method], configDir());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('contacts.x\\u001b[2J\\u0007\\u009b\\u202e');
    const raws = ['\u0007', '\u001b', '\u009b', '\u202e'];
    for (const raw of raws) expect(result.stderr).not.toContain(raw);
    // On stdout too (the whole answer, and the --json error document): escaped, the same value.
    for (const args of [['--raw'], ['--json']]) {
      const out = await runCli(['rpc', 'crm', method, ...args], configDir());
      for (const raw of raws) expect(out.stdout, args[0]).not.toContain(raw);
      expect(JSON.stringify(JSON.parse(out.stdout))).toContain(JSON.stringify(method).slice(1, -1));
    }
  });

  it('--raw prints the whole response, --id sets the id', async () => {
    const result = await runCli(
      ['rpc', 'crm', 'contacts.get', 'id:=1', '--raw', '--id', '42'],
      configDir(),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ jsonrpc: '2.0', id: 42, result: { id: 1 } });
    const error = await runCli(['rpc', 'crm', 'contacts.get', 'id:=3', '--raw'], configDir());
    expect(error.code).toBe(1);
    expect(JSON.parse(error.stdout).error.code).toBe(-32004);
  });

  it('--notify sends no id and prints nothing', async () => {
    const result = await runCli(['rpc', 'crm', 'contacts.list', '--notify'], configDir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('--batch sends a batch from a file or stdin and prints the array', async () => {
    const batch = [
      { jsonrpc: '2.0', method: 'contacts.get', params: { id: 1 }, id: 1 },
      { jsonrpc: '2.0', method: 'contacts.list', params: {} },
      { jsonrpc: '2.0', method: 'contacts.list', params: {}, id: 'b' },
    ];
    const file = join(configDir(), 'batch.json');
    writeFileSync(file, JSON.stringify(batch));
    const result = await runCli(['rpc', 'crm', '--batch', file], configDir());
    expect(result.code, result.stderr).toBe(0);
    const answers = JSON.parse(result.stdout) as { id: unknown }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 'b']);
    const fromStdin = await runCli(['rpc', 'crm', '--batch', '-'], configDir(), {
      input: JSON.stringify([batch[0], { jsonrpc: '2.0', method: 'nope', id: 2 }]),
    });
    expect(fromStdin.code).toBe(1);
    expect(JSON.parse(fromStdin.stdout)).toHaveLength(2);
    const notGood = await runCli(['rpc', 'crm', '--batch', '-'], configDir(), {
      input: '{"not":"an array"}',
    });
    expect(notGood.code).toBe(2);
    // A batch of notifications only: the service answers 204, the array of responses is [].
    for (const globals of [[], ['--json']]) {
      const quiet = await runCli([...globals, 'rpc', 'crm', '--batch', '-'], configDir(), {
        input: JSON.stringify([batch[1], batch[1]]),
      });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(JSON.parse(quiet.stdout)).toEqual([]);
    }
  });

  it('regression: --id or --notify together with --batch is a usage error (exit 2)', async () => {
    const file = join(configDir(), 'one.json');
    writeFileSync(file, JSON.stringify([{ jsonrpc: '2.0', method: 'contacts.list', id: 1 }]));
    for (const flags of [['--id', '7'], ['--notify']]) {
      const result = await runCli(['rpc', 'crm', '--batch', file, ...flags], configDir());
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toContain('--batch');
      expect(result.stdout).toBe('');
    }
  });

  it('regression: not logged in is exit 3 with a login hint, even with no base URL anywhere (it was 2)', async () => {
    const empty = freshConfigDir();
    const result = await runCli(['rpc', 'crm', 'contacts.list'], empty);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('not logged in (profile default)');
    expect(result.stderr).toContain('hint: dasvc login');
    expect(result.stderr).not.toContain('base URL');
    // No profile at all: the login that makes it is the next step.
    const other = await runCli(['--profile', 'work', 'rpc', 'crm', 'contacts.list'], empty);
    expect(other.code).toBe(3);
    expect(other.stderr).toContain('hint: dasvc login --profile work');
  });

  it('regression: --json prints a JSON-RPC error as the human line on stderr and its object on stdout', async () => {
    const result = await runCli(['rpc', 'crm', 'contacts.get', 'id:=3', '--json'], configDir());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error -32004: Contact not found$/m);
    expect(result.stderr).toContain('data: {"id":3}');
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'jsonrpc_error',
        exitCode: 1,
        message: 'error -32004: Contact not found',
        rpc: { code: -32004, message: 'Contact not found', data: { id: 3 } },
      },
    });
    // Other errors too: human on stderr, one JSON object on stdout.
    const missing = await runCli(['rpc', 'nowhere', 'x.y', '--json'], configDir());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^dasvc: no API for scope nowhere/m);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      error: { exitCode: 1, code: 'http_404', message: expect.stringContaining('no API') },
    });
    // --raw already puts the error response on stdout: still one document.
    const raw = await runCli(
      ['rpc', 'crm', 'contacts.get', 'id:=3', '--json', '--raw'],
      configDir(),
    );
    expect(raw.code).toBe(1);
    expect(JSON.parse(raw.stdout)).toMatchObject({ jsonrpc: '2.0', error: { code: -32004 } });
  });

  it('refuses unreadable params as usage errors (exit 2)', async () => {
    for (const params of [['id:=nope'], ['novalue'], ['id=@/nonexistent/file'], ['{broken']]) {
      const result = await runCli(['rpc', 'crm', 'contacts.get', ...params], configDir());
      expect(result.code, params.join(' ')).toBe(2);
    }
    // A file that cannot be read, said in words rather than node's codes.
    for (const [item, problem] of [
      ['id=@/nonexistent/file', 'no such file'],
      ['id:=@/', 'it is a folder'],
    ]) {
      const result = await runCli(['rpc', 'crm', 'contacts.get', item!], configDir());
      expect(result.stderr, item).toMatch(
        new RegExp(`^dasvc: cannot read the params file /\\S*: ${problem}\\n`),
      );
    }
    // No method: what lists the methods.
    expect(await runCli(['rpc', 'crm'], configDir())).toMatchObject({
      code: 2,
      stderr:
        'dasvc: missing method: dasvc rpc <scope> <method> [params...]\nhint: dasvc rpc crm rpc.discover lists the methods of the instance\n',
    });
    expect((await runCli(['rpc', 'crm', 'contacts.list', '--bogus-flag'], configDir())).code).toBe(
      2,
    );
  });

  it('401 → exit 3 blaming the token given; 403 → exit 3, a login with both scopes; 404 → exit 1', async () => {
    const bad = await runCli(
      ['rpc', 'crm', 'contacts.list', '--token', 'not-a-real-token'],
      configDir(),
    );
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('hint: --token holds a token the service refused');
    const forbidden = await runCli(['rpc', 'wiki', 'pages.list'], configDir());
    expect(forbidden.code).toBe(3);
    // The login asks for wiki beside the scope the profile holds, not for wiki alone.
    expect(forbidden.stderr).toContain('hint: dasvc login --scope "crm wiki"');
    const unknown = await runCli(['rpc', 'nosuchinstance', 'x.y'], configDir());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404');
  });

  it('uses --token / DASVC_TOKEN without any store, with --base-url or --api-url', async () => {
    const minted = await mintTokens(mock.url, 'bob', 'crm');
    const empty = freshConfigDir();
    const viaEnv = await runCli(['rpc', 'crm', 'contacts.list'], empty, {
      env: { DASVC_TOKEN: minted.access_token, DASVC_BASE_URL: mock.url },
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout).map((c: { id: number }) => c.id)).toEqual([3, 4]);
    const viaTemplate = await runCli(
      [
        'rpc',
        'crm',
        'contacts.get',
        'id:=3',
        '--token',
        minted.access_token,
        '--api-url',
        `${mock.url}/webservice/json/{scope}`,
      ],
      empty,
    );
    expect(viaTemplate.code, viaTemplate.stderr).toBe(0);
    const noBase = await runCli(
      ['rpc', 'crm', 'contacts.list', '--token', minted.access_token],
      empty,
    );
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toContain('--base-url');
  });

  it('given --token and the base URL, does not read a config file it does not use', async () => {
    const minted = await mintTokens(mock.url, 'bob', 'crm');
    const broken = freshConfigDir();
    writeFileSync(join(broken, 'config.json'), '{not json');
    const env = { DASVC_TOKEN: minted.access_token, DASVC_BASE_URL: mock.url };
    const sent = await runCli(['rpc', 'crm', 'contacts.list'], broken, { env });
    expect(sent.code, sent.stderr).toBe(0);
    // Where the profile is needed (no base URL given), the broken file is said, never ignored.
    const needed = await runCli(['rpc', 'crm', 'contacts.list'], broken, {
      env: { DASVC_TOKEN: minted.access_token },
    });
    expect(needed.code).toBe(2);
    expect(needed.stderr).toContain('is not valid JSON');
  });

  it('unreachable service → exit 4', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const result = await runCli(
      ['rpc', 'crm', 'contacts.list', '--base-url', `http://127.0.0.1:${port}`, '--token', 'x'],
      freshConfigDir(),
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /^dasvc: cannot connect to http:\/\/127\.0\.0\.1:\d+\/webservice\/json\/crm: connection refused/,
    );
  });

  it('HTTP 500 → exit 1; a dropped connection → exit 4', async () => {
    await control(mock.url, 'faults', {
      kind: 'error',
      count: 1,
      status: 500,
      path: '/webservice/json',
    });
    const failed = await runCli(['rpc', 'crm', 'contacts.list'], configDir());
    expect(failed.code).toBe(1);
    await control(mock.url, 'faults', { kind: 'drop', count: 1, path: '/webservice/json' });
    const dropped = await runCli(['rpc', 'crm', 'contacts.list'], configDir());
    expect(dropped.code).toBe(4);
  });

  it('--verbose traces the exchange on stderr with the token redacted, stdout unchanged', async () => {
    await clearJournal(mock.url);
    const result = await runCli(['--verbose', 'rpc', 'crm', 'contacts.list'], configDir());
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/> POST http:\/\/127\.0\.0\.1:\d+\/webservice\/json\/crm/);
    expect(result.stderr).toContain('> authorization: Bearer [redacted]');
    expect(result.stderr).toMatch(/< 200 \(\d+ ms\)/);
    expect(JSON.parse(result.stdout)).toHaveLength(2);
    // The trace describes the one exchange that happened, nothing more.
    const journal = await journalEntries(mock.url);
    expect(journal.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'POST /webservice/json/crm 200',
    ]);
  });
});
