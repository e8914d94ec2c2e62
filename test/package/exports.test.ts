// A separate project imports dasvc exactly as SPEC §1 names the entry points: `dasvc`,
// `dasvc/mock` and `dasvc/msw`, in plain Node ESM (types: test/package/packed-install.test.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracked } from '../helpers/children.js';
import { ROOT } from '../helpers/cli.js';

let project: string;

function run(file: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    tracked(
      execFile(file, args, { cwd: project }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
  });
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'dasvc-consumer-'));
  mkdirSync(join(project, 'node_modules'));
  // What `npm install <path-to-dasvc>` makes: a link to the package.
  symlinkSync(ROOT, join(project, 'node_modules/dasvc'), 'dir');
  // The integrator's own dev dependencies: msw for their tests, Node's types for TypeScript.
  symlinkSync(join(ROOT, 'node_modules/msw'), join(project, 'node_modules/msw'), 'dir');
  symlinkSync(join(ROOT, 'node_modules/@types'), join(project, 'node_modules/@types'), 'dir');
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the package entry points, from another project', () => {
  it('imports and uses dasvc, dasvc/mock and dasvc/msw in Node ESM', async () => {
    writeFileSync(
      join(project, 'consumer.mjs'),
      `
import { dasvc, DasvcError } from 'dasvc';
import { startMockServer, createMockApp } from 'dasvc/mock';
import { createMockHandlers } from 'dasvc/msw';
import { setupServer } from 'msw/node';

const mock = await startMockServer({ port: 0, autoApprove: 'alice' });
const minted = await (await fetch(mock.url + '/_mock/tokens', {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ user: 'alice', scope: 'crm' }),
})).json();
const client = dasvc({ baseUrl: mock.url, clientId: 'demo-client', clientSecret: 'demo-secret',
  token: minted.access_token, store: 'memory' });
const contact = await client.rpc('crm', 'contacts.get', { id: 1 });
let refused = '';
try { await client.rpc('crm', 'contacts.get', { id: 3 }); }
catch (e) { refused = e instanceof DasvcError ? e.kind + ' ' + e.constructor.name : String(e); }
await client.revoke({ hint: 'access_token' });
let revoked = '';
try { await client.rpc('crm', 'contacts.list'); }
catch (e) { revoked = e instanceof DasvcError ? e.kind : String(e); }
await mock.close();

const app = createMockApp();
const discover = await app(new Request('http://x.test/webservice/json/crm', { method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 }) }));

const server = setupServer(...createMockHandlers({ baseUrl: 'https://das.example.test' }));
server.listen({ onUnhandledRequest: 'error' });
const token = await fetch('https://das.example.test/webservice/authorize?grant_type=authorization_code&client_id=demo-client&client_secret=demo-secret&code=nope', { method: 'POST' });
server.close();

console.log(JSON.stringify({ name: contact.name, refused, revoked,
  discover: discover.status, token: [token.status, (await token.json()).error] }));
`,
    );
    const result = await run(process.execPath, ['consumer.mjs']);
    expect(result.code, result.out).toBe(0);
    expect(JSON.parse(result.out.trim().split('\n').pop()!)).toEqual({
      name: 'Ada Lovelace',
      // The class keeps its name in the bundle: Node prints it so.
      refused: 'service JsonRpcError',
      revoked: 'auth',
      discover: 401,
      token: [400, 'invalid_grant'],
    });
  });
  it('an uncaught error names its class and shows one short line of the bundle, not its start', async () => {
    writeFileSync(
      join(project, 'uncaught.mjs'),
      `import { dasvc, DasvcError } from 'dasvc';
console.error('classes:', DasvcError.name);
dasvc({ baseUrl: 'ftp://x.test' });
`,
    );
    const result = await run(process.execPath, ['uncaught.mjs']);
    expect(result.code).toBe(1);
    expect(result.out).toContain('classes: DasvcError');
    expect(result.out).toMatch(
      /^UsageError: base URL .* must be http or https: ftp:\/\/x\.test\/?$/m,
    );
    // Node prints the line the error was thrown from: a minified bundle's would be tens of KB.
    expect(result.out.length).toBeLessThan(8000);
  });
  // The shipped declarations are type-checked from the installed tarball, under node16 and
  // bundler resolution, in test/package/packed-install.test.ts.
});
