// Contracts for `dasvc types`: one hand-written OpenRPC document with every construct the
// declarations must render as a TypeScript user would write it, and a folder that
// `dasvc mock --proxy --record` writes as an integrator's app calls an installation through it.
import { startMockServer } from '../../src/mock/index.js';
import { mintTokens } from './cli.js';
import { rpc } from './mock-client.js';
import { scratchDir } from './scratch.js';

/**
 * The calls of an app through the recording proxy: by name, by position, an error answer, a call
 * with params and one without.
 */
export const RECORDED_CALLS: { scope: string; method: string; params?: unknown }[] = [
  { scope: 'crm', method: 'contacts.list' },
  { scope: 'crm', method: 'contacts.get', params: { id: 1 } },
  { scope: 'crm', method: 'contacts.get', params: { id: 3 } },
  { scope: 'wiki', method: 'pages.list', params: [2] },
  { scope: 'wiki', method: 'pages.list', params: [] },
];

/** A folder written by `--record` through a proxy in front of `upstream` (a mock as installation). */
export async function recordedFolder(upstream: string): Promise<string> {
  const dir = scratchDir('dasvc-recorded-');
  const proxy = await startMockServer({
    port: 0,
    proxy: upstream,
    record: dir,
    log: () => undefined,
  });
  try {
    const { access_token } = await mintTokens(upstream, 'alice', 'crm wiki');
    for (const [id, call] of RECORDED_CALLS.entries()) {
      const body = { jsonrpc: '2.0', method: call.method, params: call.params, id };
      const answer = await rpc(proxy.url, call.scope, access_token, body);
      if (answer.status !== 200) throw new Error(`${call.method}: HTTP ${answer.status}`);
    }
  } finally {
    await proxy.close();
  }
  return dir;
}

/** A JSON Schema, loosely: what the tests change in one is typed. */
export interface Schema {
  [keyword: string]: unknown;
  properties?: Record<string, Schema>;
  description?: string;
}

/** An OpenRPC content descriptor. */
export interface Descriptor {
  name: string;
  required?: boolean;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  schema: Schema;
}

/** An OpenRPC method object. */
export interface Method {
  name: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  paramStructure?: 'by-name' | 'by-position' | 'either';
  params: Descriptor[];
  result: Descriptor;
  errors?: { code: number; message: string; data?: unknown }[];
}

/** An OpenRPC document. */
export interface Document {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: Method[];
  components?: { schemas: Record<string, Schema> };
}

/** A method with no params whose result is the components' schema `schema`. */
export function returning(name: string, schema: string, result = 'r') {
  return {
    name,
    params: [],
    result: { name: result, schema: { $ref: `#/components/schemas/${schema}` } },
  };
}

/**
 * Instance `shop`: `$ref` (and a recursive one), `oneOf`/`anyOf`, `enum`, `const`, nested
 * objects, arrays, every kind of `additionalProperties`, descriptions, `deprecated`, params by
 * name, by position and either, required and optional, declared errors, a reference to a
 * schema outside the document (not fetched), and a schema named as a global type (`Record`).
 */
export const EVERY_CONSTRUCT: Document = {
  openrpc: '1.2.6',
  info: { title: 'Shop', version: '2.0.0', description: 'Orders and their items.' },
  methods: [
    {
      name: 'orders.get',
      summary: 'One order',
      description: 'Only orders of the authorizing user.',
      paramStructure: 'by-name',
      params: [
        { name: 'id', required: true, description: 'the order id', schema: { type: 'integer' } },
        {
          name: 'expand',
          description: 'what to include',
          schema: { type: 'array', items: { enum: ['items', 'customer'] } },
        },
      ],
      result: { name: 'order', schema: { $ref: '#/components/schemas/Order' } },
      errors: [
        { code: -32004, message: 'Order not found' },
        { code: -32010, message: 'Order archived', data: { since: '2024-01-01' } },
      ],
    },
    {
      name: 'orders.search',
      summary: 'Orders matching a query',
      paramStructure: 'by-position',
      params: [
        { name: 'query', required: true, schema: { type: 'string' } },
        { name: 'limit', schema: { type: 'integer', minimum: 1 } },
      ],
      result: {
        name: 'orders',
        description: 'the orders found, newest first',
        schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } },
      },
    },
    {
      name: 'orders.tag',
      deprecated: true,
      summary: 'Tags an order',
      params: [
        { name: 'id', required: true, schema: { type: 'integer' } },
        {
          name: 'tag',
          required: true,
          schema: { oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/Tag' }] },
        },
        { name: 'note', deprecated: true, schema: { type: 'string' } },
      ],
      result: { name: 'ok', schema: { const: true } },
    },
    returning('catalog.tree', 'Category', 'root'),
    returning('records.latest', 'Record', 'record'),
    {
      name: 'meta.labels',
      params: [],
      result: {
        name: 'labels',
        schema: {
          type: 'object',
          description: 'label text by language',
          additionalProperties: { type: 'string' },
        },
      },
    },
    {
      name: 'meta.extra',
      params: [{ name: 'filter', schema: { type: 'object', additionalProperties: true } }],
      result: {
        name: 'extra',
        schema: {
          type: 'object',
          properties: { known: { type: 'string' } },
          additionalProperties: true,
        },
      },
    },
    {
      name: 'meta.spec',
      params: [],
      result: { name: 'spec', schema: { $ref: 'https://example.test/spec.json' } },
    },
  ],
  components: {
    schemas: {
      Order: {
        type: 'object',
        description: 'An order as the shop keeps it.',
        required: ['id', 'status', 'items'],
        properties: {
          id: { type: 'integer' },
          status: { enum: ['open', 'paid', 'shipped'], description: 'where the order stands' },
          kind: { const: 'order' },
          total: { anyOf: [{ type: 'number' }, { type: 'null' }] },
          items: {
            type: 'array',
            items: {
              type: 'object',
              required: ['sku', 'quantity'],
              properties: {
                sku: { type: 'string' },
                quantity: { type: 'integer' },
                price: {
                  type: 'object',
                  properties: { amount: { type: 'number' }, currency: { type: 'string' } },
                },
              },
            },
          },
          tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
        },
      },
      Tag: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, color: { enum: ['red', 'green', 'blue'] } },
      },
      // Named as TypeScript's own Record, which the declarations must not hide.
      Record: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'integer' } },
      },
      Category: {
        type: 'object',
        required: ['name', 'children'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Category' } },
        },
      },
    },
  },
};
