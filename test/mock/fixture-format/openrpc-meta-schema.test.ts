// SPEC §6: any document that passes the OpenRPC meta-schema is an instance, even when some of its
// examples contradict their schemas (one warning line per document counts them, and they are
// answered as written); a document that fails the meta-schema is refused naming every problem.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMockApp, startMockServer } from '../../../src/mock/index.js';
import { UsageError } from '../../../src/errors.js';
import { runDasvc, startMockInProcess } from '../../helpers/mock-process.js';
import { bearerOf, openRpcFolder } from '../../helpers/openrpc-folder.js';
import { scratchDir } from '../../helpers/scratch.js';

const BASE = 'http://mock.test';

/** Valid OpenRPC 1.3.2; three of its five pairings contradict their own schemas. */
const ILLUSTRATED = {
  openrpc: '1.3.2',
  info: { title: 'Notes', version: '1.0.0' },
  methods: [
    {
      name: 'notes.clear',
      params: [],
      result: { name: 'nothing', schema: { type: 'null' } },
      examples: [
        // The string "null" for {"type":"null"}: the kind of slip published documents carry.
        { name: 'cleared', params: [], result: { name: 'nothing', value: 'null' } },
      ],
    },
    {
      name: 'notes.get',
      params: [{ name: 'id', required: true, schema: { type: 'integer', minimum: 1 } }],
      result: { $ref: '#/components/contentDescriptors/Note' },
      examples: [
        {
          name: 'first',
          params: [{ name: 'id', value: 1 }],
          result: { name: 'note', value: { id: 1, text: 'hello' } },
        },
        {
          name: 'zero',
          params: [{ name: 'id', value: 0 }],
          result: { name: 'note', value: { id: 0, text: 'the zeroth' } },
        },
        {
          name: 'untitled',
          params: [{ name: 'id', value: 2 }],
          result: { name: 'note', value: { id: 2 } },
        },
        {
          name: 'missing',
          params: [{ name: 'id', value: 9 }],
          'x-error': { code: 404, message: 'no such note' },
        },
      ],
    },
  ],
  components: {
    contentDescriptors: {
      Note: {
        name: 'note',
        schema: {
          type: 'object',
          required: ['id', 'text'],
          properties: { id: { type: 'integer' }, text: { type: 'string' } },
        },
      },
    },
  },
};

describe('a valid document whose examples contradict their schemas', () => {
  const dir = openRpcFolder('notes', ILLUSTRATED);
  const file = join(dir, 'instances', 'notes.openrpc.json');
  const warned: string[] = [];
  const app = createMockApp({ fixtures: dir, warn: (line) => warned.push(line) });
  afterAll(() => app.close());

  async function call(method: string, params: unknown): Promise<unknown> {
    const res = await app(
      new Request(`${BASE}/webservice/json/notes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await bearerOf(app, 'notes', BASE)}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
    );
    return res.json();
  }

  it('loads, and one warning line counts them', async () => {
    expect(await call('notes.get', { id: 1 })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { id: 1, text: 'hello' },
    });
    expect(warned).toEqual([
      `fixture ${file}: 3 of 5 example pairings contradict their schemas; answered as written (listed by --verbose and GET /_mock/warnings)`,
    ]);
  });

  it('answers each as written: a result against its schema, params against theirs', async () => {
    expect(await call('notes.clear', [])).toMatchObject({ result: 'null' });
    expect(await call('notes.get', { id: 2 })).toMatchObject({ result: { id: 2 } });
    expect(await call('notes.get', [0])).toMatchObject({ result: { id: 0, text: 'the zeroth' } });
    // Other params the schema refuses are still invalid params.
    expect(await call('notes.get', { id: -1 })).toMatchObject({ error: { code: -32602 } });
  });

  it('GET /_mock/warnings lists each with its file and JSON pointer', async () => {
    const res = await app(new Request(`${BASE}/_mock/warnings`));
    expect(await res.json()).toEqual([
      {
        file,
        instance: 'notes',
        method: 'notes.clear',
        example: 'cleared',
        at: '/methods/0/examples/0',
        pointer: '/methods/0/examples/0/result/value',
        problem: 'result must be null',
      },
      {
        file,
        instance: 'notes',
        method: 'notes.get',
        example: 'zero',
        at: '/methods/1/examples/1',
        pointer: '/methods/1/examples/1/params/0/value',
        problem: 'id must be >= 1',
      },
      {
        file,
        instance: 'notes',
        method: 'notes.get',
        example: 'untitled',
        at: '/methods/1/examples/2',
        pointer: '/methods/1/examples/2/result/value',
        problem: "result must have required property 'text'",
      },
    ]);
  });

  it('verbose: a line for each after the count', async () => {
    const lines: string[] = [];
    const verbose = createMockApp({ fixtures: dir, verbose: true, warn: (l) => lines.push(l) });
    try {
      await verbose(new Request(`${BASE}/_mock/warnings`));
      expect(lines.slice(1)).toEqual([
        `fixture ${file}: /methods/0/examples/0/result/value: method "notes.clear", example "cleared": result must be null`,
        `fixture ${file}: /methods/1/examples/1/params/0/value: method "notes.get", example "zero": id must be >= 1`,
        `fixture ${file}: /methods/1/examples/2/result/value: method "notes.get", example "untitled": result must have required property 'text'`,
      ]);
    } finally {
      await verbose.close();
    }
  });

  it('dasvc mock: the count on stderr, and under --json each one on stdout', async () => {
    const mock = await startMockInProcess(['--fixtures', dir], { globals: ['--json'] });
    try {
      await mock.waitFor('/methods/1/examples/2/result/value');
      const objects = mock
        .stdout()
        .split('\n')
        .slice(1)
        .filter((line) => line.startsWith('{"warning"'))
        .map((line) => JSON.parse(line) as { warning: { pointer: string } });
      expect(objects.map((o) => o.warning.pointer)).toEqual([
        '/methods/0/examples/0/result/value',
        '/methods/1/examples/1/params/0/value',
        '/methods/1/examples/2/result/value',
      ]);
      expect(mock.stderr()).toContain(
        'notes.openrpc.json: 3 of 5 example pairings contradict their schemas',
      );
    } finally {
      await mock.stop();
    }
  });
});

/** Fails the meta-schema in five places, one of them inside a JSON Schema. */
const BROKEN = {
  openrpc: '1.2.6',
  info: { title: 'Notes' },
  methods: [
    {
      name: 'notes.get',
      params: [{ name: 'id', schema: { type: 'int' } }],
      result: 'note',
      examples: [{ name: 'one', params: [{ value: 1 }] }],
    },
    { name: 'notes.list', params: [], colour: 'blue' },
  ],
};

describe('a document that fails the OpenRPC meta-schema', () => {
  const dir = openRpcFolder('notes', BROKEN);
  const file = join(dir, 'instances', 'notes.openrpc.json');
  const expected = [
    `fixture ${file}: /info: needs "version" (5 problems)`,
    `fixture ${file}: /methods/0/params/0/schema/type: unknown value "int" (allowed: "array", "boolean", "integer", "null", "number", "object", "string")`,
    `fixture ${file}: /methods/0/result: must be a JSON object, not "note"`,
    `fixture ${file}: /methods/0/examples/0/params/0: needs "name"`,
    `fixture ${file}: /methods/1: unknown member "colour"`,
  ];

  it('is refused naming every problem: file, JSON pointer, message', async () => {
    const error = await startMockServer({ fixtures: dir, port: 0 }).then(
      () => new Error('the broken document loaded'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message.split('\n')).toEqual(expected);
    // The library's synchronous face refuses it as it is made.
    expect(() => createMockApp({ fixtures: dir })).toThrow(UsageError);
  });

  it('words its problems as the other fixture files', () => {
    // The same slip in an instance file of dasvc's own format, checked by its own schema.
    const own = scratchDir('dasvc-own-');
    mkdirSync(join(own, 'instances'));
    writeFileSync(join(own, 'clients.txt'), 'c:s\n');
    writeFileSync(join(own, 'users.json'), '{"u":{"instances":["notes"]}}');
    const ownFile = join(own, 'instances', 'notes.json');
    writeFileSync(
      ownFile,
      JSON.stringify({ methods: [{ name: 'n', params: [], result: 'note' }] }),
    );
    const refusal = (fixtures: string) => {
      try {
        createMockApp({ fixtures });
      } catch (error) {
        return (error as Error).message.split('\n');
      }
      throw new Error(`${fixtures} loaded`);
    };
    const words = 'must be a JSON object, not "note"';
    expect(refusal(own)).toEqual([`fixture ${ownFile}: /methods/0/result: ${words}`]);
    expect(refusal(dir)).toContain(`fixture ${file}: /methods/0/result: ${words}`);
  });

  it('dasvc mock exits 2 with every problem on stderr', async () => {
    const result = await runDasvc(['mock', '--port', '0', '--fixtures', dir]);
    expect(result.code).toBe(2);
    for (const line of expected) expect(result.stderr).toContain(line);
  });
});
