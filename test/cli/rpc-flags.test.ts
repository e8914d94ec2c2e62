// `dasvc rpc`'s flags at their edges (SPEC §3, §4: a bad flag is exit 2), in-process against the
// mock app: values a script produces by mistake are refused before anything is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as rpcRun } from '../../src/cli/commands/rpc/run.js';
import type { RpcOptions } from '../../src/cli/commands/rpc/run.js';
import { UsageError } from '../../src/errors.js';
import { createMockApp } from '../../src/mock/index.js';
import { cleanup, failure, fakeTerminal, type FakeTerminal } from '../helpers/cli-in-process.js';
import { appTransport } from '../helpers/in-process.js';

const app = createMockApp({ log: () => undefined });
const sent: string[] = [];
const transport = appTransport(app);
const terminals: FakeTerminal[] = [];
afterAll(async () => {
  for (const t of terminals) cleanup(t);
  await app.close();
});

function terminal(): FakeTerminal {
  const t = fakeTerminal({
    send: (request) => {
      sent.push(request.url);
      return transport(request);
    },
  });
  terminals.push(t);
  return t;
}

async function mintedToken(): Promise<string> {
  const minted = await app(
    new Request('http://das.test/_mock/tokens', {
      method: 'POST',
      body: JSON.stringify({ user: 'alice', scope: 'crm' }),
    }),
  );
  return ((await minted.json()) as { access_token: string }).access_token;
}

const call = (extra: Partial<RpcOptions>): RpcOptions => ({
  baseUrl: 'http://das.test',
  scope: 'crm',
  method: 'contacts.list',
  paramItems: [],
  ...extra,
});

describe('dasvc rpc flags', () => {
  it.each(['', '0x10', '1e3', ' 1', '1.0', '+1', '99999999999999999999'])(
    'regression: --id %j is refused (exit 2), not sent as another number',
    async (id) => {
      const t = terminal();
      const before = sent.length;
      const error = await failure(rpcRun(call({ id, token: await mintedToken() }), t.deps));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain('--id must be an integer');
      expect(sent.length).toBe(before);
    },
  );

  it('--id takes any safe integer, negative ones too', async () => {
    const t = terminal();
    await rpcRun(call({ id: '-7', raw: true, token: await mintedToken() }), t.deps);
    expect(JSON.parse(t.stdout.text)).toMatchObject({ id: -7 });
  });

  it.each([
    ['empty', '', /access token \(--token, DASVC_TOKEN, option token\) is empty/],
    ['with a newline', 'abc\ndef', /has a space, a control or a non-ASCII character/],
    ['with a space', 'abc def', /has a space, a control or a non-ASCII character/],
    ['non-ASCII', 'abcé', /has a space, a control or a non-ASCII character/],
  ])(
    'regression: --token %s is a usage error naming the flag, never echoed',
    async (_n, token, message) => {
      const t = terminal();
      const error = await failure(rpcRun(call({ token }), t.deps));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      if (token !== '') expect((error as Error).message).not.toContain(token);
    },
  );

  // Regression: params nested deeper than JSON.stringify goes were a stack trace (exit 1).
  it('params nested too deep to send: a usage error, nothing sent', async () => {
    const t = terminal();
    const before = sent.length;
    const deep = `{"a":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    const error = await failure(
      rpcRun(
        call({ method: 'contacts.get', paramItems: [deep], token: await mintedToken() }),
        t.deps,
      ),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      'the params cannot be sent as JSON: they are nested too deep',
    );
    expect(sent.length).toBe(before);
  });

  // Regression: an answer nested deeper than JSON.stringify goes crashed the CLI (a bug report).
  it('an answer nested too deep to print: exit 4, said', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const t = fakeTerminal({
      send: async () => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: `{"jsonrpc":"2.0","result":${deep},"id":1}`,
      }),
    });
    terminals.push(t);
    const error = await failure(rpcRun(call({ token: 'a-token' }), t.deps));
    expect(error).toMatchObject({ exitCode: 4, code: 'unexpected_response' });
    expect((error as Error).message).toMatch(/^the answer cannot be printed as JSON/);
  });

  it('regression: a batch that sends one id twice prints both answers (was a network error)', async () => {
    const t = terminal();
    const file = join(t.configDir, 'batch.json');
    const one = { jsonrpc: '2.0', method: 'contacts.list', id: 1 };
    writeFileSync(file, JSON.stringify([one, one]));
    await rpcRun(call({ method: undefined, batch: file, token: await mintedToken() }), t.deps);
    const answers = JSON.parse(t.stdout.text) as { id: number; result: unknown[] }[];
    expect(answers.map((a) => a.id)).toEqual([1, 1]);
    expect(answers[0]!.result).toHaveLength(2);
  });
});
