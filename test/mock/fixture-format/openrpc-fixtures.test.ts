// SPEC §6: an OpenRPC 1.x document written by hand (or by another tool) is an instance; params
// are checked with full JSON Schema; recorded examples are replayed; rpc.discover returns it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockApp, type MockApp } from '../../../src/mock/index.js';
import { InstanceRecording } from '../../../src/mock/proxy/recording.js';
import { scratchDir } from '../../helpers/scratch.js';
import { bearerOf, callAt, openRpcFolder } from '../../helpers/openrpc-folder.js';

const BASE = 'http://mock.test';

/** An OpenRPC document as an integrator might write it: $ref to components, every kind of keyword. */
const DOC = {
  openrpc: '1.2.6',
  info: { title: 'Shop', version: '2.1.0' },
  methods: [
    {
      name: 'orders.create',
      paramStructure: 'by-name',
      params: [
        { $ref: '#/components/contentDescriptors/Customer' },
        {
          name: 'items',
          required: true,
          schema: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Item' } },
        },
        {
          name: 'payment',
          schema: {
            oneOf: [
              {
                type: 'object',
                required: ['card'],
                properties: { card: { type: 'string', pattern: '^[0-9]{16}$' } },
                additionalProperties: false,
              },
              {
                type: 'object',
                required: ['invoice'],
                properties: { invoice: { const: true } },
                additionalProperties: false,
              },
            ],
          },
        },
      ],
      result: { name: 'order', schema: { $ref: '#/components/schemas/Order' } },
      examples: [
        {
          name: 'one book',
          params: [
            { name: 'customer', value: { id: 7, address: { country: 'CH', zip: '8000' } } },
            { name: 'items', value: [{ sku: 'BOOK-1', quantity: 1 }] },
          ],
          result: { name: 'order', value: { id: 'o-1', status: 'open' } },
        },
        { $ref: '#/components/examplePairings/Refused' },
      ],
    },
    {
      name: 'orders.status',
      paramStructure: 'by-position',
      params: [{ name: 'id', required: true, schema: { type: 'string' } }],
      result: { name: 'status', schema: { enum: ['open', 'paid'] } },
    },
    {
      // A schema that is itself again first (any of an integer or itself): a string never ends.
      name: 'orders.count',
      params: [{ name: 'n', required: true, schema: { $ref: '#/components/schemas/Count' } }],
      result: { name: 'n', schema: {} },
    },
  ],
  components: {
    contentDescriptors: {
      Customer: {
        name: 'customer',
        required: true,
        schema: {
          type: 'object',
          required: ['id', 'address'],
          properties: {
            id: { type: 'integer', minimum: 1 },
            address: {
              type: 'object',
              required: ['country'],
              properties: {
                country: { enum: ['CH', 'DE', 'FR'] },
                zip: { type: 'string', pattern: '^[0-9]{4,5}$' },
              },
            },
          },
        },
      },
    },
    schemas: {
      Count: { anyOf: [{ type: 'integer' }, { $ref: '#/components/schemas/Count' }] },
      Item: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]+-[0-9]+$' },
          quantity: { type: 'integer', minimum: 1 },
        },
      },
      Order: {
        type: 'object',
        properties: { id: { type: 'string' }, status: { enum: ['open', 'paid'] } },
      },
    },
    examplePairings: {
      Refused: {
        name: 'out of stock',
        params: [
          { name: 'customer', value: { id: 7, address: { country: 'CH' } } },
          { name: 'items', value: [{ sku: 'GONE-9', quantity: 2 }] },
        ],
        'x-error': { code: 4001, message: 'out of stock', data: { sku: 'GONE-9' } },
      },
    },
  },
};

let dir: string;
let app: MockApp;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dasvc-openrpc-'));
  mkdirSync(join(dir, 'instances'));
  writeFileSync(join(dir, 'clients.txt'), 'shop-client:shop-secret\n');
  writeFileSync(join(dir, 'users.json'), JSON.stringify({ carol: { instances: ['shop'] } }));
  writeFileSync(join(dir, 'instances', 'shop.openrpc.json'), JSON.stringify(DOC));
  app = createMockApp({ fixtures: dir });
  const res = await app(
    new Request(`${BASE}/_mock/tokens`, {
      method: 'POST',
      // No client_id: fixtures without demo-client mint for their first client.
      body: JSON.stringify({ user: 'carol', scope: 'shop' }),
    }),
  );
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, params?: unknown): Promise<Record<string, unknown>> {
  const res = await app(
    new Request(`${BASE}/webservice/json/shop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params ? { params } : {}) }),
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const GOOD = {
  items: [{ quantity: 1, sku: 'BOOK-1' }],
  customer: { address: { zip: '8000', country: 'CH' }, id: 7 },
};

describe('an OpenRPC document as fixtures', () => {
  it('rpc.discover returns the document as written', async () => {
    expect((await call('rpc.discover')).result).toEqual(DOC);
  });

  it('replays a recorded result: deep equality, member order ignored', async () => {
    expect((await call('orders.create', GOOD)).result).toEqual({ id: 'o-1', status: 'open' });
  });

  it('replays a recorded JSON-RPC error from a $ref example pairing', async () => {
    const params = {
      customer: { id: 7, address: { country: 'CH' } },
      items: [{ sku: 'GONE-9', quantity: 2 }],
    };
    expect((await call('orders.create', params)).error).toEqual({
      code: 4001,
      message: 'out of stock',
      data: { sku: 'GONE-9' },
    });
  });

  it('valid params without a recorded answer: -32001 listing the recorded params', async () => {
    const params = { ...GOOD, payment: { invoice: true } };
    const error = (await call('orders.create', params)).error as Record<string, unknown>;
    expect(error).toMatchObject({ code: -32001, message: 'no recorded answer' });
    expect(error.data).toEqual([
      GOOD,
      { customer: { id: 7, address: { country: 'CH' } }, items: [{ sku: 'GONE-9', quantity: 2 }] },
    ]);
    const status = (await call('orders.status', ['o-1'])).error as Record<string, unknown>;
    expect(status).toMatchObject({ code: -32001, data: [] });
  });

  it.each([
    [
      'minimum in a $ref content descriptor',
      { ...GOOD, customer: { id: 0, address: { country: 'CH' } } },
      'customer/id must be >= 1',
    ],
    [
      'enum in a nested object',
      { ...GOOD, customer: { id: 7, address: { country: 'XX' } } },
      'customer/address/country must be equal to one of the allowed values',
    ],
    [
      'pattern through $ref to components/schemas',
      { ...GOOD, items: [{ sku: 'book', quantity: 1 }] },
      'items/0/sku must match pattern "^[A-Z]+-[0-9]+$"',
    ],
    ['minItems', { ...GOOD, items: [] }, 'items must NOT have fewer than 1 items'],
    [
      'oneOf',
      { ...GOOD, payment: { card: '12' } },
      'payment must match exactly one schema in oneOf',
    ],
    ['a required param missing', { items: GOOD.items }, 'missing required param "customer"'],
  ])('-32602 with the validator message: %s', async (_name, params, message) => {
    const error = (await call('orders.create', params)).error as Record<string, unknown>;
    expect(error).toMatchObject({ code: -32602, message: 'Invalid params' });
    expect(String(error.data)).toContain(message);
  });

  it('paramStructure: by-name refuses an array, by-position refuses an object', async () => {
    expect((await call('orders.create', [GOOD.customer, GOOD.items])).error).toMatchObject({
      code: -32602,
      data: 'orders.create takes params by name (an object)',
    });
    expect((await call('orders.status', { id: 'o-1' })).error).toMatchObject({
      code: -32602,
      data: 'orders.status takes params by position (an array)',
    });
  });
});

describe('schemas past what can be checked', () => {
  it('a value its schema cannot check without end is -32602, not an internal error', async () => {
    // An integer passes the check (no example answers it: -32001).
    expect((await call('orders.count', { n: 3 })).error).toMatchObject({ code: -32001 });
    expect((await call('orders.count', { n: 'three' })).error).toMatchObject({
      code: -32602,
      data: 'n could not be checked: nested too deep',
    });
  });
});

/** DOC with one method whose one param's schema is a `$ref` to `ref`. */
function withParamRef(ref: string) {
  const method = { name: 'x', params: [{ name: 'q', schema: { $ref: ref } }] };
  return { ...DOC, methods: [{ ...method, result: { name: 'r', schema: {} } }] };
}

describe('a broken OpenRPC document', () => {
  it.each([
    [
      { ...DOC, openrpc: '3.0.0' },
      /shop\.openrpc\.json: \/openrpc: "3\.0\.0" is not an OpenRPC 1\.x version \(1\.0\.0, /,
    ],
    [
      {
        ...DOC,
        methods: [{ name: 'x', params: [{ $ref: '#/components/contentDescriptors/Nope' }] }],
      },
      /\/methods\/0\/params\/0: "\$ref" #\/components\/contentDescriptors\/Nope points at nothing/,
    ],
    [
      // What every object inherits is no member of the document.
      { ...DOC, methods: [{ name: 'x', params: [{ $ref: '#/constructor' }] }] },
      /\/methods\/0\/params\/0: "\$ref" #\/constructor points at nothing/,
    ],
    [
      // Under a property named like a keyword, and outside the components, alike.
      {
        ...DOC,
        methods: [
          {
            name: 'x',
            params: [
              {
                name: 'q',
                schema: {
                  properties: { enum: { $ref: '#/components/schemas/constructor' } },
                },
              },
            ],
            result: { name: 'r', schema: {} },
          },
        ],
      },
      /\/methods\/0\/params\/0\/schema\/properties\/enum\/\$ref: "\$ref" #\/components\/schemas\/constructor points at nothing/,
    ],
    [withParamRef('#/info/constructor'), /"\$ref" #\/info\/constructor points at nothing/],
    [
      // A member that is no schema (a string) is nothing a schema can point at.
      withParamRef('#/info/title'),
      /"\$ref" #\/info\/title points at nothing/,
    ],
    [
      // A schema that is itself again with nothing between: ajv would follow it without end.
      {
        ...DOC,
        components: {
          ...DOC.components,
          schemas: { ...DOC.components.schemas, Item: { $ref: '#/components/schemas/Item' } },
        },
      },
      /\/methods\/0\/params\/1\/schema: invalid JSON Schema: its \$refs lead back to themselves/,
    ],
    [
      // Nor of its components, in a schema: ajv would take what it finds there for a schema.
      withParamRef('#/components/schemas/constructor'),
      /\/methods\/0\/params\/0\/schema\/\$ref: "\$ref" #\/components\/schemas\/constructor points at nothing/,
    ],
    [
      {
        ...DOC,
        components: {
          ...DOC.components,
          schemas: { ...DOC.components.schemas, Odd: { $ref: '#/components/schemas/toString' } },
        },
      },
      /\/components\/schemas\/Odd\/\$ref: "\$ref" #\/components\/schemas\/toString points at nothing/,
    ],
    [
      // A fragment is percent-decoded before it is followed: a bad escape is the file's problem.
      {
        ...DOC,
        methods: [{ name: 'x', params: [{ $ref: '#/components/contentDescriptors/%zz' }] }],
      },
      /\/methods\/0\/params\/0: "\$ref" #\/components\/contentDescriptors\/%zz: a "%" escape/,
    ],
    [
      { ...DOC, methods: [{ name: 'x', params: [{ name: 'a', schema: { type: 'text' } }] }] },
      /\/methods\/0\/params\/0\/schema\/type: unknown value "text" \(allowed: "array", /,
    ],
    [
      {
        ...DOC,
        methods: [
          {
            name: 'x',
            params: [
              {
                name: 'a',
                schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' },
              },
            ],
          },
        ],
      },
      /\/methods\/0\/params\/0\/schema: invalid JSON Schema: .*2020-12.* \(dasvc reads JSON Schema draft-07, the draft of OpenRPC 1\.x\)/,
    ],
  ])('names the file, the JSON pointer and the problem (%#)', async (doc, message) => {
    const { startMockServer } = await import('../../../src/mock/index.js');
    await expect(
      startMockServer({ fixtures: openRpcFolder('shop', doc), port: 0 }),
    ).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(message),
    });
  });
});

describe('any OpenRPC 1.x version', () => {
  it('loads documents of versions later than the meta-schema package lists (1.4.1)', async () => {
    for (const openrpc of ['1.4.1', '1.10.0']) {
      const app = createMockApp({ fixtures: openRpcFolder('shop', { ...DOC, openrpc }) });
      // Loaded: its methods answer, and rpc.discover gives the document as written.
      expect(await callAt(app, 'shop', 'rpc.discover', undefined, BASE)).toMatchObject({
        result: { openrpc },
      });
      await app.close();
    }
  });
});

describe('a schema "$ref" anywhere in the document', () => {
  it('resolves against the document, as OpenRPC means it, not only into its components', async () => {
    const doc = {
      openrpc: '1.2.6',
      info: { title: 'Shop', version: '1' },
      'x-defs': { Count: { type: 'integer', minimum: 1 } },
      components: {
        contentDescriptors: {
          // Two keys that one escape tells apart: "My%20P" is written "My%2520P" in a $ref.
          'My P': { name: 'p', required: true, schema: { type: 'integer' } },
          'My%20P': { name: 'p', required: true, schema: { type: 'string' } },
        },
        schemas: { S: { type: 'integer', 'x-meta': { $ref: '#/components/schemas/Nope' } } },
      },
      methods: [
        {
          name: 'a',
          params: [{ name: 'n', required: true, schema: { $ref: '#/x-defs/Count' } }],
          result: { name: 'r', schema: {} },
        },
        {
          name: 'b',
          params: [{ name: 'm', required: true, schema: { $ref: '#/methods/0/params/0/schema' } }],
          result: { name: 'r', schema: {} },
        },
        {
          name: 'c',
          params: [{ $ref: '#/components/contentDescriptors/My%20P' }],
          result: { name: 'r', schema: {} },
        },
        {
          // A schema with an $id of its own; extension data that holds a "$ref" (no schema).
          name: 'd',
          params: [
            {
              name: 's',
              required: true,
              schema: {
                $id: 'urn:dasvc:test:own-id',
                'x-meta': { $ref: '#/components/schemas/Nope' },
                $ref: '#/components/schemas/S',
              },
            },
          ],
          result: { name: 'r', schema: {} },
        },
        {
          // A schema with an $id of its own refers within itself: its #/definitions are its own.
          name: 'e',
          params: [
            {
              name: 'v',
              required: true,
              schema: {
                $id: 'urn:dasvc:test:inner',
                definitions: { X: { type: 'integer' } },
                $ref: '#/definitions/X',
              },
            },
          ],
          result: { name: 'r', schema: {} },
        },
      ],
    };
    const shop = createMockApp({ fixtures: openRpcFolder('shop', doc), autoApprove: 'u' });
    const bearer = await bearerOf(shop, 'shop', BASE);
    const ask = async (method: string, params: unknown) => {
      const res = await shop(
        new Request(`${BASE}/webservice/json/shop`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}` },
          body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, params }),
        }),
      );
      return ((await res.json()) as { error?: { code: number; data?: unknown } }).error;
    };
    expect(await ask('a', { n: 0 })).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: 'n must be >= 1',
    });
    expect(await ask('b', { m: 'x' })).toMatchObject({ code: -32602, data: 'm must be integer' });
    expect(await ask('c', { p: 'x' })).toMatchObject({ code: -32602, data: 'p must be integer' });
    expect(await ask('d', { s: 'x' })).toMatchObject({ code: -32602, data: 's must be integer' });
    expect(await ask('e', { v: 'x' })).toMatchObject({ code: -32602, data: 'v must be integer' });
    // Valid: no schema stands in the way (nothing is recorded to answer them).
    expect(await ask('a', { n: 2 })).toMatchObject({ code: -32001 });
  });
});

describe('data that holds a "$ref" member', () => {
  it('loads: enum, const, default and examples values are data, not references', async () => {
    const data = { $ref: '#/components/schemas/Nope' };
    const doc = {
      ...DOC,
      methods: [
        {
          name: 'x',
          params: [
            { name: 'a', schema: { enum: [data] } },
            { name: 'b', schema: { const: data } },
            { name: 'c', schema: { type: 'object', default: data, examples: [data] } },
          ],
          result: { name: 'r', schema: {} },
        },
      ],
      components: { ...DOC.components, examples: { Ref: { name: 'ref', value: data } } },
    };
    const app = createMockApp({ fixtures: openRpcFolder('shop', doc) });
    // Loaded, and the data is data: a value equal to it passes enum and const.
    const answer = await callAt(app, 'shop', 'x', { a: data, b: data }, BASE);
    expect(answer.error).toMatchObject({ code: -32001 });
    const refused = await callAt(app, 'shop', 'x', { a: 1 }, BASE);
    expect(refused.error).toMatchObject({ code: -32602 });
    await app.close();
  });
});

describe('a recorded method called both by name and by position (SPEC §6 replay)', () => {
  it('replays each call as recorded: positional params bind to the recorder’s arg0, arg1, …', async () => {
    const recording = new InstanceRecording('echo');
    recording.add('echo', { t: 'a', n: 2 }, { result: 'named' });
    recording.add('echo', ['a', 2], { result: 'positional' });
    const folder = mkdtempSync(join(tmpdir(), 'dasvc-openrpc-'));
    mkdirSync(join(folder, 'instances'));
    writeFileSync(join(folder, 'clients.txt'), 'c:s\n');
    writeFileSync(join(folder, 'users.json'), JSON.stringify({ dee: { instances: ['echo'] } }));
    writeFileSync(
      join(folder, 'instances', 'echo.openrpc.json'),
      JSON.stringify(recording.document(undefined)),
    );
    let echo: MockApp | undefined;
    try {
      echo = createMockApp({ fixtures: folder });
      const app = echo;
      const minted = await app(
        new Request(`${BASE}/_mock/tokens`, {
          method: 'POST',
          body: JSON.stringify({ user: 'dee', scope: 'echo', client_id: 'c' }),
        }),
      );
      const bearer = ((await minted.json()) as { access_token: string }).access_token;
      const send = async (params: unknown) => {
        const res = await app(
          new Request(`${BASE}/webservice/json/echo`, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}` },
            body: JSON.stringify({ jsonrpc: '2.0', method: 'echo', id: 1, params }),
          }),
        );
        return (await res.json()) as Record<string, unknown>;
      };
      expect((await send(['a', 2])).result).toBe('positional');
      expect((await send({ n: 2, t: 'a' })).result).toBe('named');
      // data lists the recorded params as they were sent: by name, and by position as an array.
      expect((await send(['a', 3])).error).toMatchObject({
        code: -32001,
        data: [{ t: 'a', n: 2 }, ['a', 2]],
      });
      // Outside the schema inferred from the calls seen: still a call not recorded (SPEC §6).
      expect((await send(['a', 2, 'extra'])).error).toMatchObject({ code: -32001 });
    } finally {
      await echo?.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('results of the JSON fixture format against their declared result schema (SPEC §6)', () => {
  const METHOD = {
    name: 'count',
    result: { name: 'n', schema: { type: 'integer', minimum: 0 } },
  };
  async function start(method: Record<string, unknown>, handler?: string) {
    // Removed after the file whatever happens (a start that fails leaves it too).
    const dir = scratchDir('dasvc-results-');
    mkdirSync(join(dir, 'instances'));
    writeFileSync(join(dir, 'clients.txt'), 'c:s\n');
    writeFileSync(join(dir, 'users.json'), '{"u":{"instances":["shop"]}}');
    writeFileSync(join(dir, 'instances', 'shop.json'), JSON.stringify({ methods: [method] }));
    if (handler) writeFileSync(join(dir, 'instances', 'count.js'), handler);
    const { startMockServer } = await import('../../../src/mock/index.js');
    return { dir, started: startMockServer({ fixtures: dir, port: 0 }) };
  }

  /** `count` on instance shop as user u, through a token minted at the mock. */
  async function callCount(url: string): Promise<unknown> {
    const minted = await fetch(`${url}/_mock/tokens`, {
      method: 'POST',
      body: JSON.stringify({ user: 'u', scope: 'shop', client_id: 'c' }),
    });
    const { access_token: token } = (await minted.json()) as { access_token: string };
    const answer = await fetch(`${url}/webservice/json/shop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'count', params: {}, id: 1 }),
    });
    return answer.json();
  }

  it.each([
    [{ value: -1 }, '/methods/0/value', 'result must be >= 0'],
    [{ value: 1, byUser: { u: 'many' } }, '/methods/0/byUser/u', 'result must be integer'],
  ])('a static result the schema refuses stops the start (%j)', async (extra, pointer, problem) => {
    const { dir, started } = await start({ ...METHOD, ...extra });
    try {
      await expect(started).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(
          `shop.json: ${pointer}: method "count": the result does not match its result schema: ${problem}`,
        ),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['written by hand', {}],
    // `--record` adds real answers (x-recorded) to a hand-written method under its contract.
    ['recorded', { 'x-recorded': true }],
  ])(
    'an example pairing %s is served as written even against the schema (examples illustrate)',
    async (_kind, mark) => {
      const { dir, started } = await start({
        ...METHOD,
        value: 1,
        examples: [{ name: 'e', params: [], result: { name: 'n', value: -7 }, ...mark }],
      });
      const server = await started;
      try {
        expect(await callCount(server.url)).toEqual({ jsonrpc: '2.0', id: 1, result: -7 });
        expect(server.warnings).toMatchObject([
          { pointer: '/methods/0/examples/0/result/value', problem: 'result must be >= 0' },
        ]);
      } finally {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a computed result the schema refuses is a -32603 naming the problem, never the result', async () => {
    const { dir, started } = await start(
      { ...METHOD, handler: 'count.js' },
      'export default ({ user }) => (user === "u" ? -5 : 3);\n',
    );
    const server = await started;
    try {
      expect(await callCount(server.url)).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32603,
          message: 'Internal error',
          data: 'count computed a result that does not match its result schema: result must be >= 0',
        },
      });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('-32001 data of a by-position method', () => {
  it('lists examples as arrays, one that skips a position by name (it cannot be sent otherwise)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-openrpc-'));
    let app: MockApp | undefined;
    try {
      mkdirSync(join(dir, 'instances'));
      writeFileSync(join(dir, 'clients.txt'), 'c:s\n');
      writeFileSync(join(dir, 'users.json'), '{"u":{"instances":["pos"]}}');
      const param = (name: string, required: boolean) => ({ name, required, schema: {} });
      writeFileSync(
        join(dir, 'instances', 'pos.openrpc.json'),
        JSON.stringify({
          openrpc: '1.2.6',
          info: { title: 'pos', version: '1' },
          methods: [
            {
              name: 'm',
              paramStructure: 'by-position',
              params: [param('a', true), param('b', false), param('c', false)],
              result: { name: 'r', schema: {} },
              examples: [
                {
                  name: 'two',
                  params: [
                    { name: 'first', value: 1 },
                    { name: 'second', value: 2 },
                  ],
                  result: { name: 'r', value: 'x' },
                },
                {
                  name: 'gap',
                  params: [
                    { name: 'a', value: 1 },
                    { name: 'c', value: 3 },
                  ],
                  result: { name: 'r', value: 'y' },
                },
              ],
            },
          ],
        }),
      );
      app = createMockApp({ fixtures: dir });
      const minted = await app(
        new Request(`${BASE}/_mock/tokens`, {
          method: 'POST',
          body: JSON.stringify({ user: 'u', scope: 'pos' }),
        }),
      );
      const { access_token: bearer } = (await minted.json()) as { access_token: string };
      const res = await app(
        new Request(`${BASE}/webservice/json/pos`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}` },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'm', params: [9], id: 1 }),
        }),
      );
      expect(((await res.json()) as { error: unknown }).error).toEqual({
        code: -32001,
        message: 'no recorded answer',
        data: [[1, 2], { a: 1, c: 3 }],
      });
    } finally {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
