// `dasvc types` (SPEC §10) without the CLI: the declarations of a contract, every construct of a
// hand-written OpenRPC document as one would write it by hand, the same bytes for the same
// contract, nothing a hostile document could write into them, and what `--check` lists.
import { describe, expect, it } from 'vitest';
import type { InstanceFixture } from '../../src/mock/fixture-format/fixture-format.js';
import { loadFixtures } from '../../src/mock/fixture-format/load-fixtures.js';
import { parseOpenRpcInstance } from '../../src/mock/fixture-format/openrpc-format.js';
import { instanceOfDocument } from '../../src/typegen/contract-sources.js';
import { contractChanges } from '../../src/typegen/declarations-diff.js';
import { BANNER, declarationsOf } from '../../src/typegen/declarations.js';
import { EVERY_CONSTRUCT, returning } from '../helpers/typegen.js';

const instance = (name: string, doc: unknown): InstanceFixture =>
  parseOpenRpcInstance(name, structuredClone(doc), `${name}.openrpc.json`);

/** The smallest OpenRPC document around `methods`. */
const documentOf = (title: string, methods: unknown[]) => ({
  openrpc: '1.2.6',
  info: { title, version: '1' },
  methods,
});

/** The text of one top-level declaration (`export interface Name {…}`), doc comment aside. */
function declaration(text: string, name: string): string {
  const start = text.indexOf(`export interface ${name} `);
  expect(start, `${name} is declared`).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('\n}\n', start) + 3);
}

/** The entry of one method in its instance's interface. */
function method(text: string, iface: string, name: string): string {
  const body = declaration(text, iface);
  const start = body.indexOf(`  "${name}": {`);
  expect(start, `${name} is declared`).toBeGreaterThanOrEqual(0);
  return body.slice(start, body.indexOf('\n  };\n', start) + 5);
}

describe('declarationsOf', () => {
  it('renders every construct of a document as a TypeScript user writes it', async () => {
    const text = await declarationsOf([instance('shop', EVERY_CONSTRUCT)]);
    expect(text.startsWith(`${BANNER}\n`)).toBe(true);
    expect(declaration(text, 'Api')).toBe('export interface Api {\n  shop: ShopMethods;\n}\n');
    // By name only, required and optional, descriptions as doc comments, an enum in an array;
    // the declared errors with their codes as literals and their messages as comments.
    expect(method(text, 'ShopMethods', 'orders.get')).toBe(
      [
        '  "orders.get": {',
        '    params: {',
        '      /**',
        '       * the order id',
        '       */',
        '      id: number;',
        '      /**',
        '       * what to include',
        '       */',
        '      expand?: ("items" | "customer")[];',
        '    };',
        '    result: Order;',
        '    errors?:',
        '      | {',
        '          /**',
        '           * Order not found',
        '           */',
        '          code: -32004;',
        '          message: string;',
        '          data?: unknown;',
        '        }',
        '      | {',
        '          /**',
        '           * Order archived',
        '           */',
        '          code: -32010;',
        '          message: string;',
        '          data?: unknown;',
        '        };',
        '  };',
      ].join('\n'),
    );
    expect(text).toContain(
      '  /**\n   * One order\n   *\n   * Only orders of the authorizing user.\n   */\n  "orders.get"',
    );
    // By position only: the tuples a call may send; a $ref in an array.
    expect(method(text, 'ShopMethods', 'orders.search')).toContain(
      '    params: [string] | [string, number];\n    /**\n     * the orders found, newest first\n     */\n    result: Order[];',
    );
    // Either: the object and the tuples; oneOf of a type and a $ref; const; deprecated.
    const tag = method(text, 'ShopMethods', 'orders.tag');
    expect(tag).toContain('tag: string | Tag;');
    expect(tag).toContain(
      '          /**\n           * @deprecated\n           */\n          note?: string;',
    );
    expect(tag).toContain('| [number, string | Tag]\n      | [number, string | Tag, string];');
    expect(tag).toContain('result: true;');
    expect(text).toContain('  /**\n   * @deprecated\n   * Tags an order\n   */\n  "orders.tag"');
    // No params: none by name, none by position; a recursive $ref.
    expect(method(text, 'ShopMethods', 'catalog.tree')).toContain(
      'params: { [k: string]: never } | [];\n    result: Category;',
    );
    expect(declaration(text, 'Category')).toBe(
      'export interface Category {\n  name: string;\n  children: Category[];\n}\n',
    );
    // additionalProperties: a schema, true, and not said (no index signature).
    expect(method(text, 'ShopMethods', 'meta.labels')).toContain(
      'result: {\n      [k: string]: string;\n    };',
    );
    expect(method(text, 'ShopMethods', 'meta.extra')).toContain(
      'result: {\n      known?: string;\n      [k: string]: unknown;\n    };',
    );
    // Nested objects, enum, const, anyOf with null, arrays of objects, a $ref inside.
    expect(declaration(text, 'Order')).toBe(
      [
        'export interface Order {',
        '  id: number;',
        '  /**',
        '   * where the order stands',
        '   */',
        '  status: "open" | "paid" | "shipped";',
        '  kind?: "order";',
        '  total?: number | null;',
        '  items: {',
        '    sku: string;',
        '    quantity: number;',
        '    price?: {',
        '      amount?: number;',
        '      currency?: string;',
        '    };',
        '  }[];',
        '  tags?: Tag[];',
        '}',
        '',
      ].join('\n'),
    );
    expect(text).toContain('/**\n * An order as the shop keeps it.\n */\nexport interface Order {');
    // A schema outside the document is not fetched: unknown, saying why.
    expect(method(text, 'ShopMethods', 'meta.spec')).toContain(
      '     * https://example.test/spec.json: dasvc types reads no schema from outside the document\n     */\n    result: unknown;',
    );
    // Every instance answers rpc.discover.
    expect(method(text, 'ShopMethods', 'rpc.discover')).toContain('result: OpenRpcDocument;');
  });

  it('gives the same bytes for the same contract, whatever the order of instances and methods', async () => {
    const fixtures = loadFixtures(undefined, true);
    const instances = [...fixtures.instances.values(), instance('shop', EVERY_CONSTRUCT)];
    const reordered = structuredClone(EVERY_CONSTRUCT);
    reordered.methods.reverse();
    const first = await declarationsOf(instances);
    expect(await declarationsOf(instances)).toBe(first);
    expect(
      await declarationsOf([
        instance('shop', reordered),
        ...[...fixtures.instances.values()].reverse(),
      ]),
    ).toBe(first);
  });

  it('types a schema that only describes as any value, and an object of no members as any object', async () => {
    const doc = documentOf('v', [
      {
        name: 'v.x',
        paramStructure: 'by-name',
        params: [
          { name: 'id', description: 'anything', required: true, schema: {} },
          { name: 'q', required: true, schema: { description: 'any value' } },
          { name: 'o', required: true, schema: { type: 'object' } },
          {
            name: 'n',
            required: true,
            schema: { type: 'object', properties: { inner: { title: 'Inner' } } },
          },
          { name: 'e', required: true, schema: { type: 'object', properties: {} } },
          { name: 'u', required: true, schema: { type: ['object', 'null'] } },
          { name: 'r', required: true, schema: { type: 'object', required: ['a'] } },
          {
            name: 'c',
            required: true,
            schema: { type: 'object', additionalProperties: false },
          },
          {
            name: 'ca',
            required: true,
            schema: { type: ['object'], additionalProperties: false },
          },
          {
            name: 'cn',
            required: true,
            schema: { type: ['object', 'null'], additionalProperties: false },
          },
        ],
        result: { name: 'r', schema: { description: 'any' } },
      },
    ]);
    const text = await declarationsOf([instance('v', doc)]);
    const entry = method(text, 'VMethods', 'v.x');
    expect(entry).toMatch(/ {6}id: unknown;/);
    expect(entry).toMatch(/ {6}q: unknown;/);
    expect(entry).toMatch(/ {6}o: \{\n {8}\[k: string\]: unknown;\n {6}\};/);
    expect(entry).toMatch(/ {6}n: \{\n {8}inner\?: Inner;\n {6}\};/);
    expect(entry).toMatch(/ {6}e: \{\n {8}\[k: string\]: unknown;\n {6}\};/);
    expect(entry).toMatch(/ {6}u: \{\n {8}\[k: string\]: unknown;\n {6}\} \| null;/);
    expect(entry).toMatch(/ {6}r: \{\n {8}a: unknown;\n {8}\[k: string\]: unknown;\n {6}\};/);
    expect(entry).toMatch(/ {6}c: \{ \[k: string\]: never \};/);
    expect(entry).toMatch(/ {6}ca: \{ \[k: string\]: never \};/);
    expect(entry).toMatch(/ {6}cn: \{ \[k: string\]: never \} \| null;/);
    expect(text).toContain('export type Inner = unknown;');
    expect(entry).toMatch(/ {4}result: unknown;/);
  });

  it('declares no recorded method the installation never confirmed (-32601, an HTTP error, an invalid request)', async () => {
    /** A method only --record wrote, with its examples (each marked as the recorder marks). */
    const recorded = (name: string, examples: object[], params: object[] = []) => ({
      name,
      'x-recorded': true,
      params,
      result: { name: 'result', schema: {} },
      examples: examples.map((marks, i) => ({
        name: `${name} #${i + 1}`,
        params: [],
        'x-recorded': true,
        ...marks,
      })),
    });
    const notFound = { 'x-error': { code: -32601, message: 'Method not found' } };
    const doc = documentOf('r', [
      recorded('r.gone', [notFound]),
      recorded(
        'r.unreached',
        [
          {
            params: [{ name: 'x', value: 1 }],
            'x-http-status': 401,
            'x-error': { code: -32000, message: 'HTTP 401: invalid_token' },
          },
        ],
        [{ name: 'x', required: false, schema: false }],
      ),
      recorded('r.malformed', [
        {
          'x-invalid-request': 'jsonrpc must be "2.0"',
          'x-error': { code: -32600, message: 'Invalid Request' },
        },
      ]),
      recorded('r.kept', [notFound, { result: { name: 'result', value: 1 } }]),
    ]);
    const text = await declarationsOf([instance('r', doc)]);
    expect(text).not.toContain('"r.gone"');
    expect(text).not.toContain('"r.unreached"');
    expect(text).not.toContain('"r.malformed"');
    expect(method(text, 'RMethods', 'r.kept')).toContain('result: unknown;');
  });

  it('names a schema name of two instances by scope in each, whatever else comes and goes', async () => {
    const other = structuredClone(EVERY_CONSTRUCT);
    other.info.title = 'Outlet';
    other.components!.schemas.Order!.properties!.id = { type: 'string' };
    const text = await declarationsOf([
      instance('shop', EVERY_CONSTRUCT),
      instance('outlet', other),
    ]);
    // No instance's Order is `Order`: another instance's would take its place as they change.
    expect(text).not.toContain('export interface Order ');
    expect(declaration(text, 'OutletOrder')).toContain('  id: string;');
    expect(declaration(text, 'ShopOrder')).toContain('  id: number;');
    expect(method(text, 'ShopMethods', 'orders.get')).toContain('result: ShopOrder;');
    // A name of one instance alone stays as it is; an instance added before it takes nothing.
    const alone = await declarationsOf([instance('shop', EVERY_CONSTRUCT)]);
    expect(declaration(alone, 'Order')).toContain('  id: number;');
    const added = await declarationsOf([
      instance('shop', EVERY_CONSTRUCT),
      instance('aaa', documentOf('Aaa', [])),
    ]);
    expect(contractChanges(alone, added)).toEqual([{ scope: 'aaa', change: 'added' }]);
  });

  it('declares params, properties, methods and schemas named hasOwnProperty as they are', async () => {
    const doc = {
      ...documentOf('Own', [
        {
          name: 'hasOwnProperty',
          params: [{ name: 'hasOwnProperty', required: true, schema: { type: 'string' } }],
          result: { name: 'r', schema: { $ref: '#/components/schemas/hasOwnProperty' } },
        },
      ]),
      components: {
        schemas: {
          hasOwnProperty: {
            type: 'object',
            required: ['hasOwnProperty'],
            properties: { hasOwnProperty: { type: 'integer' } },
          },
        },
      },
    };
    const text = await declarationsOf([instance('own', doc)]);
    expect(text).not.toContain('dasvcStandIn');
    expect(text).not.toContain('DasvcStandIn');
    const methods = declaration(text, 'OwnMethods');
    expect(methods).toMatch(/^ {2}hasOwnProperty: \{$/m);
    expect(methods).toMatch(/^ {10}hasOwnProperty: string;$/m);
    expect(methods).toMatch(/^ {4}result: HasOwnProperty;$/m);
    expect(declaration(text, 'HasOwnProperty')).toContain('  hasOwnProperty: number;');
    // Beside a schema named HasOwnProperty, each keeps a type of its own.
    const both = structuredClone(doc) as typeof doc & {
      components: { schemas: Record<string, unknown> };
    };
    both.components.schemas.HasOwnProperty = {
      type: 'object',
      required: ['y'],
      properties: { y: { type: 'string' } },
    };
    both.methods.push(returning('other', 'HasOwnProperty'));
    const apart = await declarationsOf([instance('own', both)]);
    // Two names, not one interface declared twice (which TypeScript would merge).
    expect(new Set(apart.match(/^export interface HasOwnProperty\w* /gm))).toEqual(
      new Set(['export interface HasOwnProperty ', 'export interface HasOwnProperty1 ']),
    );
  });

  it('types a schema that is itself again with no object or array between as unknown, saying why', async () => {
    const doc = {
      ...documentOf('Loop', [returning('a', 'A'), returning('s', 'S'), returning('t', 'T')]),
      components: {
        schemas: {
          A: { $ref: '#/components/schemas/B' },
          B: { $ref: '#/components/schemas/A' },
          S: { anyOf: [{ $ref: '#/components/schemas/S' }, { type: 'null' }] },
          // Through an array: a type like any recursive one.
          T: {
            anyOf: [
              { type: 'array', items: { $ref: '#/components/schemas/T' } },
              { type: 'integer' },
            ],
          },
        },
      },
    };
    const text = await declarationsOf([instance('loop', doc)]);
    expect(text).toContain(
      ' * A → B → A: a schema that is itself again with no object or array between\n */\nexport type A = unknown;',
    );
    expect(text).toContain(
      ' * S → S: a schema that is itself again with no object or array between\n */\nexport type S = unknown;',
    );
    expect(text).toContain('export type T = T[] | number;');
  });

  it('says which names a patternProperties member takes', async () => {
    const doc = documentOf('Pat', [
      {
        name: 'p',
        params: [],
        result: {
          name: 'r',
          schema: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        },
      },
    ]);
    const text = await declarationsOf([instance('pat', doc)]);
    expect(text).toContain(
      '       * Members whose name matches "^x-".\n       */\n      [k: string]: string;',
    );
    expect(text).not.toContain('undefined');
  });

  it('declares an instance named __proto__ like any other', async () => {
    const text = await declarationsOf([
      instance(
        '__proto__',
        documentOf('Proto', [
          { name: 'm', params: [], result: { name: 'r', schema: { type: 'string' } } },
        ]),
      ),
      instance('shop', documentOf('Shop', [])),
    ]);
    const api = declaration(text, 'Api');
    expect(api).toMatch(/^ {2}__proto__: \w+;$/m);
    expect(api).toMatch(/^ {2}shop: \w+;$/m);
    // Every instance's rpc.discover answers the one OpenRpcDocument.
    expect(text.match(/^export interface OpenRpcDocument\w* /gm)).toEqual([
      'export interface OpenRpcDocument ',
    ]);
  });

  it('writes nothing a contract says as code: comments closed, tsType dropped, keys quoted', async () => {
    const hostile = documentOf('x', [
      {
        name: 'a"b*/\nc',
        summary: 'ends */ export declare const pwned: 1; /*',
        params: [
          {
            name: 'p',
            schema: { type: 'string', tsType: 'any; export declare const pwned2: 1' },
          },
          {
            name: 'q',
            description: 'clipboard \u001b]52;c;SGk=\u0007 csi \u009b2J rlo \u202e',
            schema: { enum: ['v\u009bw'] },
          },
        ],
        result: {
          name: 'r',
          schema: { type: 'object', properties: { '*/x': { const: { items: [1] } } } },
        },
      },
    ]);
    const text = await declarationsOf([instance('evil', hostile)]);
    expect(text).not.toMatch(/^\s*export declare/m);
    expect(text).not.toContain('pwned2');
    expect(text).toContain('* ends * / export declare const pwned: 1; /*');
    expect(text).toContain(`'a"b*/\\nc': {`);
    // An object constant stays as given (the generator reads some members of others as schemas).
    expect(text).toContain('"*/x"?: { items: [1] };');
    // Control characters as escapes: text in a comment, the same value in a string literal.
    for (const raw of ['\u001b', '\u0007', '\u009b', '\u202e']) expect(text).not.toContain(raw);
    expect(text).toContain('clipboard \\u001b]52;c;SGk=\\u0007 csi \\u009b2J rlo \\u202e');
    expect(text).toContain('q?: "v\\u009bw";');
  });
});

describe('contracts past the stack', () => {
  it('a chain of $refs too long to follow is a clear refusal, not a crash', async () => {
    const schemas: Record<string, unknown> = { S5000: { type: 'string' } };
    for (let i = 0; i < 5000; i += 1) schemas[`S${i}`] = { $ref: `#/components/schemas/S${i + 1}` };
    const doc = {
      ...documentOf('chain', [
        {
          name: 'chain',
          params: [{ name: 'p', schema: { $ref: '#/components/schemas/S0' } }],
          result: { name: 'r', schema: { $ref: '#/components/schemas/S0' } },
        },
      ]),
      components: { schemas },
    };
    const error = await declarationsOf([instance('chain', doc)]).catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'usage',
      code: 'bad_contract',
      message: expect.stringMatching(
        /^cannot write types for this contract: its schemas nest or chain too deep/,
      ),
    });
  });

  it('a document nested too deep to check is refused as such', () => {
    const schema = JSON.parse(
      `${'{"type":"array","items":'.repeat(20_000)}{"type":"string"}${'}'.repeat(20_000)}`,
    ) as unknown;
    const doc = documentOf('deep', [{ name: 'd', params: [], result: { name: 'r', schema } }]);
    const said: string[] = [];
    expect(() =>
      instanceOfDocument('deep', doc, (problem) => {
        said.push(problem);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(said[0]).toMatch(/^it is nested too deep to check/);
  });
});

describe('instanceOfDocument', () => {
  it('refuses an answer that is no OpenRPC document, naming every problem', () => {
    const refuse = (problem: string): never => {
      throw new Error(problem);
    };
    const untitled = { openrpc: '1.2.6', info: {}, methods: [] };
    expect(() => instanceOfDocument('crm', untitled, refuse)).toThrow(
      /^\/info: needs "title" \(2 problems\)\n\/info: .+$/,
    );
    expect(() => instanceOfDocument('crm', 'nope', refuse)).toThrow(
      /^must be a JSON object, not "nope"$/,
    );
  });
});

describe('contractChanges', () => {
  const base = () => structuredClone(EVERY_CONSTRUCT);
  const changes = async (edit: (doc: ReturnType<typeof base>) => void) => {
    const after = base();
    edit(after);
    return contractChanges(
      await declarationsOf([instance('shop', base())]),
      await declarationsOf([instance('shop', after)]),
    );
  };

  it('lists methods added and removed, and params, results and errors changed', async () => {
    expect(
      await changes((doc) => {
        doc.methods = doc.methods.filter((m) => m.name !== 'meta.spec');
        doc.methods.push({ name: 'orders.cancel', params: [], result: { name: 'ok', schema: {} } });
        doc.methods[0]!.params[0]!.schema = { type: 'string' };
        doc.methods[1]!.result.schema = { type: 'array', items: { type: 'string' } };
        doc.methods[0]!.errors!.pop();
      }),
    ).toEqual([
      { scope: 'shop', method: 'meta.spec', change: 'removed' },
      { scope: 'shop', method: 'orders.cancel', change: 'added' },
      { scope: 'shop', method: 'orders.get', change: 'params' },
      { scope: 'shop', method: 'orders.get', change: 'errors' },
      { scope: 'shop', method: 'orders.search', change: 'result' },
    ]);
  });

  it('names a method as it is, whatever quotes it needs, __proto__ too', async () => {
    const names = ['plain', 'dotted.name', 'a"b"c', "it's", 'tab\there', 'x"y"\nz', '__proto__'];
    expect(
      await changes((doc) => {
        for (const name of names)
          doc.methods.push({ name, params: [], result: { name: 'r', schema: {} } });
      }),
    ).toEqual([...names].sort().map((method) => ({ scope: 'shop', method, change: 'added' })));
  });

  it('sees a change of a named type in every method that names it, directly or not', async () => {
    expect(
      await changes((doc) => {
        doc.components!.schemas.Tag!.properties!.color = { enum: ['red'] };
      }),
    ).toEqual([
      // Order names Tag: orders.get and orders.search return it; orders.tag takes one.
      { scope: 'shop', method: 'orders.get', change: 'result' },
      { scope: 'shop', method: 'orders.search', change: 'result' },
      { scope: 'shop', method: 'orders.tag', change: 'params' },
    ]);
  });

  it('lists instances added and removed, and descriptions alone as such', async () => {
    const fixtures = [...loadFixtures(undefined, true).instances.values()];
    const shop = await declarationsOf([instance('shop', base())]);
    expect(contractChanges(shop, await declarationsOf(fixtures))).toEqual([
      { scope: 'crm', change: 'added' },
      { scope: 'shop', change: 'removed' },
      { scope: 'wiki', change: 'added' },
    ]);
    // A method's summary (orders.get's), and the description of a type two methods return.
    expect(
      await changes((doc) => {
        doc.methods[0]!.summary = 'Another summary';
        doc.components!.schemas.Order!.description = 'Described otherwise.';
      }),
    ).toEqual([
      { scope: 'shop', method: 'orders.get', change: 'description' },
      { scope: 'shop', method: 'orders.search', change: 'description' },
    ]);
    // The instance's own description.
    expect(
      await changes((doc) => {
        doc.info.description = 'Another shop.';
      }),
    ).toEqual([{ scope: 'shop', change: 'description' }]);
    expect(contractChanges(shop, shop)).toEqual([]);
    // A note added by hand, at the end or between declarations, changes no method.
    const noted = shop.replace(/\nexport /, '\n// kept by hand\nexport ');
    expect(noted).not.toBe(shop);
    expect(contractChanges(shop, `${noted}// last edited by hand\n`)).toEqual([]);
  });
});
