// Numbers a double cannot hold (64-bit ids, long amounts) pass `dasvc rpc` digit for digit: typed
// in params they are sent as typed; in an answer they are printed as the service wrote them.
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeaksAfterAll, freshConfigDir, runCli, secrets } from '../helpers/cli.js';
import { scratchDir } from '../helpers/scratch.js';

const RESULT =
  '{"id":12345678901234567890,"amount":0.10000000000000000555,"ok":1.5,"s":"12345678901234567890"}';

let server: Server;
let base: string;
const bodies: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      // Answers each call with its own id as written (a batch: one answer per call); the calls
      // here end with their id.
      const ids = [...body.matchAll(/"id":(-?\d+)\}(?=,\{|\]|$)/g)].map((m) => m[1]!);
      const answers = ids.map((id) => `{"jsonrpc":"2.0","id":${id},"result":${RESULT}}`);
      res.end(body.startsWith('[') ? `[${answers.join(',')}]` : answers[0]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
secrets.add('test-token-1234');
expectNoLeaksAfterAll();
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const rpc = (...rest: string[]) =>
  runCli(
    ['rpc', 'crm', ...rest, '--token', 'test-token-1234', '--base-url', base],
    freshConfigDir(),
  );

describe('dasvc rpc keeps long numbers exact', () => {
  it('refuses params that are no JSON, long numbers or not (a number where a key belongs)', async () => {
    const result = await rpc('m', 'x:={12345678901234567890:1}');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not valid JSON');
  });

  it('prints a result as the service wrote its numbers; --raw too', async () => {
    const result = await rpc('m');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${RESULT}\n`);
    const raw = await rpc('m', '--raw');
    expect(raw.stdout).toBe(`{"jsonrpc":"2.0","id":1,"result":${RESULT}}\n`);
  });

  it('sends typed params, a params object and a batch file with their digits', async () => {
    bodies.length = 0;
    expect((await rpc('m', 'id:=98765432109876543210', 'n:=[1e400]')).code).toBe(0);
    expect((await rpc('m', '{"id":-9007199254740993}')).code).toBe(0);
    const file = join(scratchDir('dasvc-exact-'), 'batch.json');
    writeFileSync(
      file,
      '[{"jsonrpc":"2.0","method":"m","params":{"id":12345678901234567891},"id":7},' +
        '{"jsonrpc":"2.0","method":"m","id":98765432109876543210}]',
    );
    const batch = await rpc('--batch', file);
    expect(batch.code, batch.stderr).toBe(0);
    // A call's long id is answered as sent, and printed so.
    expect(batch.stdout).toBe(
      `[{"jsonrpc":"2.0","id":7,"result":${RESULT}},` +
        `{"jsonrpc":"2.0","id":98765432109876543210,"result":${RESULT}}]\n`,
    );
    expect(bodies).toEqual([
      '{"jsonrpc":"2.0","method":"m","params":{"id":98765432109876543210,"n":[1e400]},"id":1}',
      '{"jsonrpc":"2.0","method":"m","params":{"id":-9007199254740993},"id":1}',
      '[{"jsonrpc":"2.0","method":"m","params":{"id":12345678901234567891},"id":7},' +
        '{"jsonrpc":"2.0","method":"m","id":98765432109876543210}]',
    ]);
  });
});
