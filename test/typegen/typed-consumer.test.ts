// SPEC §10 as an integrator's TypeScript project sees it (strict, `module: node16`): declarations
// written by `dasvc types` from the default fixtures, from a hand-written document with every
// construct and from a folder recorded through a proxy; `dasvc<Api>()` calls, a computed method
// module and msw overrides typed from them. Correct code type-checks; each wrong line fails, as
// its `@ts-expect-error` proves, with the error its comment names.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshConfigDir, ROOT, runCli } from '../helpers/cli.js';
import { FIXTURES, startMockForFile } from '../helpers/mock-client.js';
import { scratchDir } from '../helpers/scratch.js';
import { EVERY_CONSTRUCT, recordedFolder } from '../helpers/typegen.js';

const upstream = startMockForFile({ autoApprove: 'alice', log: () => undefined });
let project: string;

/**
 * Calls on the default fixtures' `Api`. Each `@ts-expect-error` names (after it) a part of the
 * message TypeScript gives for the line below it.
 */
const CALLS = `import { dasvc, type ErrorOf, type ResultOf } from 'dasvc';
import type { Api } from './api.js';

const client = dasvc<Api>({ store: 'memory' });

export async function correct(): Promise<string[]> {
  const contact = await client.rpc('crm', 'contacts.get', { id: 1 });
  const same = await client.rpc('crm', 'contacts.get', [1]);
  const contacts = await client.rpc('crm', 'contacts.list');
  const pages = await client.rpc('wiki', 'pages.list', { limit: 2 });
  const all = await client.rpc('wiki', 'pages.list');
  const document = await client.rpc('crm', 'rpc.discover');
  const answers = await client.batch('crm', [
    { method: 'contacts.get', params: { id: 1 } },
    { method: 'contacts.list' },
    { method: 'contacts.list', notify: true },
  ]);
  const two: 2 = answers.length;
  const [one, list] = answers;
  const email = 'result' in one ? one.result.email : one.error.message;
  const ids = 'result' in list ? list.result.map((c) => c.id) : [];
  const result: ResultOf<Api, 'crm', 'contacts.get'> = same;
  const declared: ErrorOf<Api, 'crm', 'contacts.get'>[] = [];
  const untyped = await dasvc().rpc('anything', 'goes', { at: 'all' });
  return [
    contact.name ?? '',
    String(contacts[0]?.id),
    String(pages.length + all.length),
    document.openrpc,
    String(two),
    email ?? '',
    String(ids),
    String(result.id),
    String(declared.length),
    String(untyped),
  ];
}

export async function wrong(): Promise<void> {
  // @ts-expect-error not assignable to parameter of type 'keyof CrmMethods'
  await client.rpc('crm', 'contacts.remove', { id: 1 });
  // @ts-expect-error not assignable to parameter of type 'keyof WikiMethods'
  await client.rpc('wiki', 'contacts.list');
  // @ts-expect-error not assignable to parameter of type 'keyof Api'
  await client.rpc('billing', 'contacts.list');
  // @ts-expect-error Property 'id' is missing
  await client.rpc('crm', 'contacts.get', {});
  // @ts-expect-error Expected 3 arguments, but got 2
  await client.rpc('crm', 'contacts.get');
  // @ts-expect-error Type 'string' is not assignable to type 'number'
  await client.rpc('crm', 'contacts.get', { id: '1' });
  // @ts-expect-error 'idd' does not exist
  await client.rpc('crm', 'contacts.get', { idd: 1 });
  // @ts-expect-error not assignable to type 'number'
  await client.rpc('crm', 'contacts.get', ['1']);
  const contact = await client.rpc('crm', 'contacts.get', { id: 1 });
  // @ts-expect-error Type 'string | undefined' is not assignable to type 'number'
  const id: number = contact.name;
  // @ts-expect-error 'contact.email' is possibly 'undefined'
  contact.email.toUpperCase();
  // @ts-expect-error Property 'emial' does not exist
  void contact.emial;
  const contacts = await client.rpc('crm', 'contacts.list');
  // @ts-expect-error Property 'name' does not exist on type
  void contacts.name;
  // @ts-expect-error Type 'string' is not assignable to type 'number'
  await client.batch('crm', [{ method: 'contacts.get', params: { id: 'x' } }]);
  void id;
}
`;

/** The hand-written document's constructs, as a TypeScript user meets them. */
const SHOP = `import { dasvc, type ErrorOf } from 'dasvc';
import type { MethodHandler } from 'dasvc/mock';
import type { Api, Category, Order, Record } from './shop-api.js';

const shop = dasvc<Api>({ store: 'memory' });

// A method taken by position only: its override gets the params by their declared names.
export const search: MethodHandler<Api, 'shop', 'orders.search'> = ({ params }) => {
  const query: string = params.query;
  const limit: number | undefined = params.limit;
  void [query, limit];
  return [];
};
// @ts-expect-error no such param
export const searchWrong: MethodHandler<Api, 'shop', 'orders.search'> = ({ params }) => params.nope;

export async function constructs(): Promise<void> {
  const order: Order = await shop.rpc('shop', 'orders.get', { id: 1, expand: ['items'] });
  const status: 'open' | 'paid' | 'shipped' = order.status;
  const total: number | null | undefined = order.total;
  const quantity: number | undefined = order.items[0]?.quantity;
  const currency: string | undefined = order.items[0]?.price?.currency;
  const found = await shop.rpc('shop', 'orders.search', ['ada']);
  const limited = await shop.rpc('shop', 'orders.search', ['ada', 10]);
  const tagged: true = await shop.rpc('shop', 'orders.tag', { id: 1, tag: { name: 'vip' } });
  await shop.rpc('shop', 'orders.tag', [1, 'vip', 'a note']);
  const tree: Category = await shop.rpc('shop', 'catalog.tree');
  const grandchild: string | undefined = tree.children[0]?.children[0]?.name;
  const labels = await shop.rpc('shop', 'meta.labels');
  const label: string | undefined = labels['en'];
  const extra = await shop.rpc('shop', 'meta.extra', { filter: { any: 1 } });
  const more: unknown = extra['anything'];
  const spec: unknown = await shop.rpc('shop', 'meta.spec');
  const record: Record = await shop.rpc('shop', 'records.latest');
  const recordId: number = record.id;
  const notFound: ErrorOf<Api, 'shop', 'orders.get'>['code'] = -32004;
  void [status, total, quantity, currency, found, limited, tagged, grandchild, label, more, spec, recordId, notFound];
  // @ts-expect-error by name only
  await shop.rpc('shop', 'orders.get', [1]);
  // @ts-expect-error by position only
  await shop.rpc('shop', 'orders.search', { query: 'ada' });
  // @ts-expect-error not one of the enum
  await shop.rpc('shop', 'orders.get', { id: 1, expand: ['everything'] });
  // @ts-expect-error a tuple too long
  await shop.rpc('shop', 'orders.search', ['ada', 10, 'more']);
  // @ts-expect-error no index signature where additionalProperties is not said
  void order['anything'];
  // @ts-expect-error the const is true
  const no: false = await shop.rpc('shop', 'orders.tag', { id: 1, tag: 'vip' });
  // @ts-expect-error -32099 is no declared error
  const undeclared: ErrorOf<Api, 'shop', 'orders.get'>['code'] = -32099;
  // @ts-expect-error labels are strings
  const notLabel: number | undefined = labels['en'];
  void [no, undeclared, notLabel];
}
`;

/** The recorded folder's methods, called as the app called them. */
const RECORDED = `import { dasvc } from 'dasvc';
import type { Api } from './recorded-api.js';

const recorded = dasvc<Api>({ store: 'memory' });

export async function replayed(): Promise<string> {
  const contact = await recorded.rpc('crm', 'contacts.get', { id: 1 });
  const pages = await recorded.rpc('wiki', 'pages.list', [2]);
  // @ts-expect-error recorded by position only
  await recorded.rpc('wiki', 'pages.list', { limit: 2 });
  // @ts-expect-error the recorded result has no such member
  void contact.phone;
  return contact.name + pages.map((p) => p.title).join();
}
`;

/** A computed method and msw overrides typed from the declarations. */
const MOCK = `import { createMockApp, type MethodHandler } from 'dasvc/mock';
import { createMockHandlers } from 'dasvc/msw';
import type { Api } from './api.js';

export const getContact: MethodHandler<Api, 'crm', 'contacts.get'> = ({ params, user }) => ({
  id: params.id,
  name: user,
});
export const listPages: MethodHandler<Api, 'wiki', 'pages.list'> = async ({ params }) =>
  [{ slug: 'home', title: String(params.limit ?? 'all') }];
// @ts-expect-error the result is no contact
export const wrongResult: MethodHandler<Api, 'crm', 'contacts.get'> = () => ({ id: 'one' });
// @ts-expect-error no such param
export const wrongParam: MethodHandler<Api, 'crm', 'contacts.get'> = ({ params }) => ({ id: params.nope });

export const handlers = createMockHandlers<Api>({
  baseUrl: 'https://das.example.test',
  methods: {
    crm: { 'contacts.get': getContact, 'contacts.list': () => [] },
    wiki: { 'pages.list': listPages },
  },
});
export const app = createMockApp<Api>({
  methods: { crm: { 'contacts.get': ({ params }) => ({ id: params.id, email: 'x@example.test' }) } },
});
createMockHandlers<Api>({
  baseUrl: 'https://das.example.test',
  // @ts-expect-error no such method to answer
  methods: { crm: { 'contacts.remove': () => true } },
});
createMockHandlers<Api>({
  baseUrl: 'https://das.example.test',
  // @ts-expect-error a list answers contacts.list
  methods: { crm: { 'contacts.list': () => 'none' } },
});
createMockApp<Api>({
  // @ts-expect-error rpc.discover is the contract's own: no override answers it
  methods: { crm: { 'rpc.discover': () => ({ openrpc: '1.2.6', info: { title: 't', version: '1' }, methods: [] }) } },
});
createMockApp({ methods: { anything: { goes: ({ params }) => params } } });
`;

/** The same, as a computed method module is written: JavaScript, typed by JSDoc. */
const MODULE = `// @ts-check
/** @type {import('dasvc/mock').MethodHandler<import('./api.js').Api, 'crm', 'contacts.get'>} */
export const getContact = ({ params, user }) => ({ id: params.id, name: user });

/** @type {import('dasvc/mock').MethodHandler<import('./api.js').Api, 'crm', 'contacts.get'>} */
// @ts-expect-error the result is no contact
export const wrong = ({ params }) => ({ id: String(params.id) });
`;

/** `dasvc types --from SOURCE --out FILE` in the project, by the CLI itself. */
async function declare(source: string, file: string): Promise<void> {
  const result = await runCli(
    ['types', '--from', source, '--out', join(project, file)],
    freshConfigDir(),
  );
  expect(result.code, result.stderr).toBe(0);
}

beforeAll(async () => {
  project = scratchDir('dasvc-typed-');
  mkdirSync(join(project, 'node_modules'));
  // The package as built (dist/), resolved through its exports as an installed one is.
  symlinkSync(ROOT, join(project, 'node_modules/dasvc'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
  const shop = join(project, 'shop.openrpc.json');
  writeFileSync(shop, JSON.stringify(EVERY_CONSTRUCT));
  await declare(FIXTURES, 'api.d.ts');
  await declare(shop, 'shop-api.d.ts');
  await declare(await recordedFolder(upstream.url), 'recorded-api.d.ts');
  writeFileSync(join(project, 'calls.ts'), CALLS);
  // The calls again with each expectation as a plain comment: the errors it names must come.
  writeFileSync(
    join(project, 'calls-bare.ts'),
    CALLS.replaceAll('// @ts-expect-error', '// expect:'),
  );
  writeFileSync(join(project, 'shop.ts'), SHOP);
  writeFileSync(join(project, 'recorded.ts'), RECORDED);
  writeFileSync(join(project, 'mock.ts'), MOCK);
  writeFileSync(join(project, 'handlers.js'), MODULE);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'node16',
        moduleResolution: 'node16',
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        types: [],
        noEmit: true,
        // The declarations written are checked in full too, and those of dasvc and what they
        // import; TypeScript's own lib files are not ours to check.
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        allowJs: true,
        checkJs: true,
      },
      files: [
        'api.d.ts',
        'shop-api.d.ts',
        'recorded-api.d.ts',
        'calls.ts',
        'calls-bare.ts',
        'shop.ts',
        'recorded.ts',
        'mock.ts',
        'handlers.js',
      ],
    }),
  );
}, 120_000);

/** tsc (the repository's TypeScript 5.9) on the project: its diagnostics, one an item. */
function typeCheck(): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'],
      { cwd: project },
      (error, stdout) =>
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          // A diagnostic's further lines (indented) are part of it.
          lines: stdout.split(/\n(?! )/).filter((line) => line !== ''),
        }),
    );
  });
}

describe('a strict node16 project with the declarations of dasvc types', () => {
  it('type-checks the correct code, and each wrong line fails with the error it expects', async () => {
    const { lines } = await typeCheck();
    // Every diagnostic is one of calls-bare.ts, the copy without the directives; everything else
    // (the declarations, the correct calls, each @ts-expect-error met) checks.
    expect(lines.filter((line) => !line.startsWith('calls-bare.ts('))).toEqual([]);
    const expected = readFileSync(join(project, 'calls-bare.ts'), 'utf8')
      .split('\n')
      .flatMap((text, i) => {
        const wanted = /\/\/ expect: (.*)$/.exec(text)?.[1];
        return wanted === undefined ? [] : [{ line: i + 2, wanted }];
      });
    expect(expected).toHaveLength(13);
    for (const { line, wanted } of expected) {
      const at = lines.filter((l) => l.startsWith(`calls-bare.ts(${line},`));
      expect(at.join('\n'), `line ${line}: ${wanted}`).toContain(wanted);
    }
    // And nothing else in it.
    const lineOf = (l: string) => Number(/^calls-bare\.ts\((\d+),/.exec(l)?.[1]);
    expect(lines.map(lineOf).filter((n) => !expected.some((e) => e.line === n))).toEqual([]);
    // A whole tsc run in a process of its own: seconds when idle, many times that on a loaded
    // machine; the timeout only catches a hang.
  }, 120_000);
});
