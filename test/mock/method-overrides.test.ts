// The mock's `methods` option (docs/design/mock-method-overrides.md): functions that answer
// methods before the fixtures, as computed methods do, in createMockApp and through msw.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { DasvcError } from '../../src/errors.js';
import { createMockApp, type MethodContext } from '../../src/mock/index.js';
import { createMockHandlers } from '../../src/mock/msw.js';
import { copyFixtures } from '../helpers/mock-client.js';

const BASE = 'http://mock.test';

type Handler = (request: Request) => Promise<Response>;

/** One JSON-RPC call as alice to `scope`, in-process: the JSON-RPC response object. */
async function call(app: Handler, scope: string, method: string, params?: unknown) {
  const minted = await app(
    new Request(`${BASE}/_mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'alice', scope: 'crm wiki' }),
    }),
  );
  const { access_token } = (await minted.json()) as { access_token: string };
  const answer = await app(
    new Request(`${BASE}/webservice/json/${scope}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
    }),
  );
  return (await answer.json()) as { result?: unknown; error?: { code: number; data?: unknown } };
}

describe('the methods option', () => {
  it('answers before the fixtures, with the params by name, the user and the instance', async () => {
    const seen: MethodContext[] = [];
    const app = createMockApp({
      methods: {
        crm: {
          'contacts.get': async (context) => {
            seen.push(context);
            return { id: context.params.id, name: 'Override' };
          },
        },
      },
    });
    expect(await call(app, 'crm', 'contacts.get', { id: 3 })).toMatchObject({
      result: { id: 3, name: 'Override' },
    });
    // A call by position is bound to the declared names, as for a computed method.
    expect(await call(app, 'crm', 'contacts.get', [2])).toMatchObject({ result: { id: 2 } });
    expect(seen).toEqual([
      { params: { id: 3 }, user: 'alice', instance: 'crm' },
      { params: { id: 2 }, user: 'alice', instance: 'crm' },
    ]);
    // The other methods answer from the fixtures.
    expect((await call(app, 'crm', 'contacts.list')).result).toHaveLength(2);
  });

  it('checks the params and the result against the declared contract', async () => {
    let calls = 0;
    const app = createMockApp({
      methods: {
        crm: {
          'contacts.get': () => {
            calls++;
            return { id: 'one' };
          },
        },
      },
    });
    expect((await call(app, 'crm', 'contacts.get', {})).error).toMatchObject({
      code: -32602,
      data: 'missing required param "id"',
    });
    expect(calls).toBe(0);
    const broken = await call(app, 'crm', 'contacts.get', { id: 1 });
    expect(broken.error?.code).toBe(-32603);
    expect(broken.error?.data).toMatch(
      /contacts\.get computed a result that does not match its result schema/,
    );
  });

  it('answers the JSON-RPC error a function throws', async () => {
    const app = createMockApp({
      methods: {
        crm: {
          'contacts.get': () => {
            throw { code: -32004, message: 'Contact not found', data: { id: 9 } };
          },
          'contacts.list': () => {
            throw new Error('the test broke');
          },
        },
      },
    });
    expect((await call(app, 'crm', 'contacts.get', { id: 9 })).error).toEqual({
      code: -32004,
      message: 'Contact not found',
      data: { id: 9 },
    });
    expect((await call(app, 'crm', 'contacts.list')).error).toMatchObject({
      code: -32603,
      data: 'the test broke',
    });
  });

  it('answers a method the fixtures do not declare, with the params as sent', async () => {
    const app = createMockApp({
      methods: { crm: { 'contacts.search': ({ params }) => ({ asked: params }) } },
    });
    expect((await call(app, 'crm', 'contacts.search', ['Ada', 5])).result).toEqual({
      asked: ['Ada', 5],
    });
    expect((await call(app, 'crm', 'contacts.search', { q: 'Ada' })).result).toEqual({
      asked: { q: 'Ada' },
    });
    // Other instances and their methods are untouched.
    expect((await call(app, 'wiki', 'contacts.search')).error?.code).toBe(-32601);
  });

  it('answers a recorded method whatever its params, before its recorded answers', async () => {
    const dir = copyFixtures();
    const recorded = {
      openrpc: '1.2.6',
      info: { title: 'crm', version: 'recorded' },
      methods: [
        {
          name: 'contacts.find',
          'x-recorded': true,
          paramStructure: 'by-name',
          params: [{ name: 'q', required: true, schema: { type: 'string' } }],
          result: { name: 'result', schema: { type: 'array' } },
          examples: [
            {
              name: 'contacts.find #1',
              'x-recorded': true,
              params: [{ name: 'q', value: 'Ada' }],
              result: { name: 'result', value: ['recorded'] },
            },
          ],
        },
      ],
    };
    // crm as a recorded OpenRPC document instead of the fixtures' own file.
    rmSync(join(dir, 'instances/crm.json'));
    writeFileSync(join(dir, 'instances/crm.openrpc.json'), JSON.stringify(recorded));
    const app = createMockApp({
      fixtures: dir,
      methods: { crm: { 'contacts.find': ({ params }) => [`answer for ${String(params.q)}`] } },
    });
    expect((await call(app, 'crm', 'contacts.find', { q: 'Ada' })).result).toEqual([
      'answer for Ada',
    ]);
    // Outside the schema inferred from the calls seen: still the function's.
    expect((await call(app, 'crm', 'contacts.find', { q: 7 })).result).toEqual(['answer for 7']);
  });

  it('refuses, naming it, what it cannot answer', () => {
    const cases: [unknown, RegExp][] = [
      ['crm', /methods: give an object/],
      [{ billing: { 'x.y': () => 1 } }, /methods: the fixtures have no instance "billing"/],
      [{ crm: ['x'] }, /methods: crm: give an object/],
      [
        { crm: { 'contacts.get': 'result' } },
        /methods: crm contacts\.get: give a function, got string/,
      ],
      [{ crm: { 'rpc.discover': () => 1 } }, /"rpc\.discover" is no method to answer/],
    ];
    for (const [methods, message] of cases) {
      let error: unknown;
      try {
        createMockApp({ methods } as never);
      } catch (caught) {
        error = caught;
      }
      expect(error, String(message)).toBeInstanceOf(DasvcError);
      expect((error as DasvcError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(message);
    }
    expect(() =>
      createMockApp({ proxy: 'http://127.0.0.1:9', methods: { crm: { 'a.b': () => 1 } } }),
    ).toThrow(/every call goes upstream with proxy/);
  });
});

describe('createMockHandlers with methods', () => {
  it('answers through msw as the app does', async () => {
    const server = setupServer(
      ...createMockHandlers({
        baseUrl: BASE,
        methods: {
          wiki: {
            'pages.list': ({ params }) => [{ slug: 'only', title: `${String(params.limit)}` }],
          },
        },
      }),
    );
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const viaFetch: Handler = (request) => fetch(request);
      expect((await call(viaFetch, 'wiki', 'pages.list', { limit: 1 })).result).toEqual([
        { slug: 'only', title: '1' },
      ]);
    } finally {
      server.close();
    }
  });
});
