// The pure parts of SPEC §6: schema inference, scrubbing, secret masking, example matching,
// JSON-RPC pairing, the recorded document and the contract check.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferSchema, mergeSchemas } from '../../../src/mock/proxy/infer-schema.js';
import { parseScrubList, scrub } from '../../../src/mock/proxy/scrub.js';
import { SecretValues } from '../../../src/util/secret-values.js';
import { findExample } from '../../../src/mock/fixture-format/example-match.js';
import { httpErrorOutcome, pairCalls } from '../../../src/mock/proxy/rpc-exchange.js';
import { processJsonRpc } from '../../../src/mock/routes/json-rpc.js';
import { InstanceRecording } from '../../../src/mock/proxy/recording.js';
import { canonicalJson, distinctExamples } from '../../../src/mock/proxy/pairings.js';
import { parseOpenRpcInstance } from '../../../src/mock/fixture-format/openrpc-format.js';
import { contractProblems } from '../../../src/mock/proxy/contract.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { copyFixtures } from '../../helpers/mock-client.js';
import { upstreamFailure } from '../../../src/mock/proxy/forwarding.js';
import {
  answerHeaders,
  endToEndHeaders,
  rawHeader,
} from '../../../src/mock/proxy/proxy-headers.js';

describe('inferSchema / mergeSchemas', () => {
  it('infers types, object members (all required) and array items', () => {
    expect(inferSchema({ a: 1, b: 'x', c: [true], d: null, e: 1.5 })).toEqual({
      type: 'object',
      properties: {
        a: { type: 'integer' },
        b: { type: 'string' },
        c: { type: 'array', items: { type: 'boolean' } },
        d: { type: 'null' },
        e: { type: 'number' },
      },
      required: ['a', 'b', 'c', 'd', 'e'],
    });
    expect(inferSchema([])).toEqual({ type: 'array' });
  });
  it('merges: unions types, widens integer to number, keeps only members always present', () => {
    expect(mergeSchemas(inferSchema(1), inferSchema(1.5))).toEqual({ type: 'number' });
    expect(mergeSchemas(inferSchema('a'), inferSchema(null))).toEqual({ type: ['string', 'null'] });
    expect(mergeSchemas(inferSchema({ a: 1, b: 2 }), inferSchema({ a: 'x' }))).toEqual({
      type: 'object',
      properties: { a: { type: ['integer', 'string'] }, b: { type: 'integer' } },
      required: ['a'],
    });
    expect(mergeSchemas(inferSchema(null), inferSchema({ a: 1 }))).toEqual({
      type: ['null', 'object'],
      properties: { a: { type: 'integer' } },
      required: ['a'],
    });
    expect(mergeSchemas(inferSchema([1]), inferSchema(['a']))).toEqual({
      type: 'array',
      items: { type: ['integer', 'string'] },
    });
  });
});

describe('scrub', () => {
  it('replaces members by name at any depth and by dotted path, keeping the JSON type', () => {
    const value = {
      email: 'a@b.c',
      contact: { email: 'x@y.z', phone: { number: '123' }, tags: ['t'], age: 3, vip: true },
      list: [{ contact: { email: 'q@r.s' } }],
      other: { number: 7 },
    };
    expect(scrub(value, parseScrubList('email, phone.number,contact.tags,age,vip'))).toEqual({
      email: 'scrubbed',
      contact: { email: 'scrubbed', phone: { number: 'scrubbed' }, tags: [], age: 0, vip: false },
      list: [{ contact: { email: 'scrubbed' } }],
      other: { number: 7 },
    });
    expect(scrub({ a: { b: 1 } }, parseScrubList(['a']))).toEqual({ a: {} });
    expect(scrub('plain', parseScrubList(''))).toBe('plain');
  });
});

describe('canonicalJson', () => {
  it('sorts members at any depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });
});

describe('pairCalls', () => {
  it('pairs a batch by id; notifications have no outcome; junk yields nothing', () => {
    const request = JSON.stringify([
      { jsonrpc: '2.0', method: 'a', params: { x: 1 }, id: 1 },
      { jsonrpc: '2.0', method: 'b' },
      { jsonrpc: '2.0', method: 'c', id: 'z' },
    ]);
    const response = JSON.stringify([
      { jsonrpc: '2.0', error: { code: 5, message: 'no', data: 1 }, id: 'z' },
      { jsonrpc: '2.0', result: null, id: 1 },
    ]);
    expect(pairCalls(request, response)).toEqual([
      { method: 'a', params: { x: 1 }, outcome: { result: null } },
      { method: 'b', params: undefined, notification: true },
      { method: 'c', params: undefined, outcome: { error: { code: 5, message: 'no', data: 1 } } },
    ]);
    expect(pairCalls('not json', '{}')).toEqual([]);
    expect(pairCalls('{"jsonrpc":"2.0","method":"a","id":1}', '<html>')).toEqual([
      { method: 'a', params: undefined },
    ]);
  });

  // A request the upstream refused as invalid (-32600) is kept as that error (SPEC §6), marked
  // so that replay never answers a valid call with the same params by it.
  it('keeps a request that is not valid JSON-RPC 2.0 only with its error, marked invalid', () => {
    const refused = '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":1}';
    const error = { error: { code: -32600, message: 'Invalid Request' } };
    const cases: [unknown, unknown, string][] = [
      [{ jsonrpc: '1.0', method: 'a', params: { id: 2 }, id: 1 }, { id: 2 }, 'jsonrpc must'],
      [{ method: 'a', params: [2], id: 1 }, [2], 'jsonrpc must'],
      [{ jsonrpc: '2.0', method: 'a', params: 5, id: 1 }, undefined, 'params must'],
      [{ jsonrpc: '2.0', method: 'a', params: null, id: 1 }, undefined, 'params must'],
      // An id it could not read is answered null: the one answer of a request sent alone.
      [{ jsonrpc: '2.0', method: 'a', id: { x: 1 } }, undefined, 'id must'],
    ];
    for (const [request, params, problem] of cases) {
      const answer = JSON.stringify(request).includes('"x":1')
        ? refused.replace('"id":1', '"id":null')
        : refused;
      const calls = pairCalls(JSON.stringify(request), answer);
      expect(calls, JSON.stringify(request)).toEqual([
        { method: 'a', params, outcome: error, invalid: expect.stringMatching(problem) },
      ]);
    }
    // Without a method, or without an error answer, there is nothing to keep.
    expect(pairCalls('{"jsonrpc":"2.0","method":7,"id":1}', refused)).toEqual([]);
    expect(pairCalls('{"jsonrpc":"1.0","method":"a","id":1}', '{"result":1,"id":1}')).toEqual([]);
    // In a batch, an answer with id null belongs to no request in particular.
    const batch = '[{"jsonrpc":"2.0","method":"a","id":{}},{"jsonrpc":"2.0","method":"b","id":2}]';
    expect(pairCalls(batch, `[${refused.replace('"id":1', '"id":null')}]`)).toEqual([
      { method: 'b', params: undefined },
    ]);
    const nullId = refused.replace('"id":1', '"id":null');
    expect(pairCalls('{"jsonrpc":"2.0","method":"a","params":[],"id":null}', nullId)).toEqual([
      { method: 'a', params: [], outcome: error },
    ]);
  });

  it('takes a request as a call exactly when the mock does: a method "" too', () => {
    for (const request of [
      { jsonrpc: '2.0', method: '', id: 1 },
      { jsonrpc: '2.0', method: 'a', params: [], id: 'x' },
      { jsonrpc: '2.0', method: 'a', params: {}, id: null },
      { jsonrpc: '1.0', method: 'a', id: 1 },
      { jsonrpc: '2.0', method: 7, id: 1 },
      { jsonrpc: '2.0', method: 'a', params: 5, id: 1 },
      { jsonrpc: '2.0', method: 'a', id: [1] },
    ]) {
      const body = JSON.stringify(request);
      const answer = processJsonRpc(body, () => ({ result: null })) as { error?: { code: number } };
      const refused = answer.error?.code === -32600;
      expect(pairCalls(body, '{}'), body).toHaveLength(refused ? 0 : 1);
    }
  });
});

describe('InstanceRecording', () => {
  it('builds a document the OpenRPC fixture parser reads back with the same examples', () => {
    const r = new InstanceRecording('crm');
    r.add('get', { id: 1 }, { result: { n: 'a' } });
    r.add('get', { id: 1, full: true }, { result: { n: 'a', more: 1 } });
    r.add('get', { full: false, id: 1 }, { error: { code: 7, message: 'x' } });
    r.add('get', { id: 1 }, { result: { n: 'b' } }); // the latest answer wins
    const doc = r.document(undefined);
    const method = (doc.methods as Record<string, unknown>[])[0]!;
    expect(method.paramStructure).toBe('by-name');
    expect(method.params).toEqual([
      { name: 'id', required: true, schema: { type: 'integer' } },
      { name: 'full', required: false, schema: { type: 'boolean' } },
    ]);
    const parsed = parseOpenRpcInstance('crm', JSON.parse(JSON.stringify(doc)), 'crm.openrpc.json');
    // Each pairing is marked recorded (x-recorded): served as it came.
    expect(parsed.methods.get('get')!.examples).toMatchObject([
      {
        params: { id: 1 },
        outcome: { result: { n: 'b' } },
        recorded: true,
        pointer: expect.any(String),
      },
      {
        params: { id: 1, full: true },
        outcome: { result: { n: 'a', more: 1 } },
        recorded: true,
        pointer: expect.any(String),
      },
      {
        params: { id: 1, full: false },
        outcome: { error: { code: 7, message: 'x' } },
        recorded: true,
      },
    ]);
    // Recording again starts from what was written, and keeps positional methods positional.
    r.add('find', ['x'], { result: [] });
    const again = new InstanceRecording('crm', {
      document: r.document(undefined),
      methods: parseOpenRpcInstance('crm', r.document(undefined), 'f').methods,
    });
    again.add('find', ['x', 2], { result: [1] });
    const find = (again.document(undefined).methods as Record<string, unknown>[])[1]!;
    expect(find).toMatchObject({
      paramStructure: 'by-position',
      params: [
        { name: 'arg0', required: true },
        { name: 'arg1', required: false },
      ],
    });
    expect(find.examples).toHaveLength(2);
  });

  it('an invalid request teaches no schema, whatever it was answered', () => {
    const r = new InstanceRecording('crm');
    r.add('get', { id: 1 }, { result: { n: 'a' } });
    // A lenient installation answered the invalid requests with its own error, or a result.
    const marks = { invalidRequest: 'jsonrpc must be "2.0"' };
    r.add('get', { id: 'x' }, { error: { code: -32010, message: 'no such' } }, marks);
    r.add('get', { id: 2, extra: true }, { result: { n: 'b' } }, marks);
    const method = (r.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(method.params).toEqual([
      { name: 'id', required: true, schema: { type: 'integer' } },
      { name: 'extra', required: false, schema: false },
    ]);
    expect(method.result).toMatchObject({ schema: { required: ['n'] } });
    expect(method.examples).toHaveLength(3);
  });

  it('records a method seen only in notifications: its params shape the schemas, no example', () => {
    const r = new InstanceRecording('t');
    r.add('ping', { at: 1 }, undefined);
    r.add('ping', { at: 2, note: 'x' }, undefined);
    const doc = r.document(undefined);
    const ping = (doc.methods as Record<string, unknown>[])[0]!;
    expect(ping).toMatchObject({
      name: 'ping',
      'x-recorded': true,
      params: [
        { name: 'at', required: true, schema: { type: 'integer' } },
        { name: 'note', required: false, schema: { type: 'string' } },
      ],
      result: { name: 'result', schema: {} },
      examples: [],
    });
    // Recording again from the folder, with no call of ping this time: its params stay as they were.
    const again = new InstanceRecording('t', {
      document: doc,
      methods: parseOpenRpcInstance('t', JSON.parse(JSON.stringify(doc)), 'f').methods,
    });
    again.add('other', {}, { result: 1 });
    const kept = (again.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(kept.params).toEqual(ping.params);
  });

  it('a hand-written method keeps its contract and only gains examples', () => {
    const document = {
      openrpc: '1.2.6',
      info: { title: 'T', version: '1' },
      methods: [
        {
          name: 'm',
          params: [{ name: 'q', schema: { type: 'string', minLength: 2 } }],
          result: { name: 'r', schema: {} },
        },
      ],
    };
    const r = new InstanceRecording('t', {
      document,
      methods: parseOpenRpcInstance('t', document, 'f').methods,
    });
    r.add('m', { q: 'ab' }, { result: 1 });
    const m = (r.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(m.params).toEqual(document.methods[0]!.params);
    expect(m.examples).toEqual([
      {
        name: 'm #1',
        params: [{ name: 'q', value: 'ab' }],
        'x-recorded': true,
        result: { name: 'result', value: 1 },
      },
    ]);
  });
});

describe('InstanceRecording: what is inferred learns only from accepted calls', () => {
  const invalid = { error: { code: -32602, message: 'Invalid params' } };

  it('a refused call is an example, but widens no schema and makes nothing optional', () => {
    const r = new InstanceRecording('crm');
    r.add('get', { id: 1 }, { result: { n: 'a' } });
    r.add('get', { id: 'one' }, invalid);
    r.add('get', ['x'], invalid);
    r.add('get', ['x', 'y'], invalid);
    r.add('get', {}, { error: { code: -32600, message: 'Invalid Request' } });
    r.add('get', { id: 2, extra: true }, invalid, { httpStatus: 500 });
    r.add('get', { id: 9 }, { error: { code: -32004, message: 'Contact not found' } });
    r.add('nope', { q: 1 }, { error: { code: -32601, message: 'Method not found' } });
    const doc = JSON.parse(JSON.stringify(r.document(undefined)));
    const [get, nope] = doc.methods as Record<string, unknown>[];
    // An application error (-32004) is accepted: the method ran with those params.
    expect(get).toMatchObject({
      paramStructure: 'by-name',
      params: [
        { name: 'id', required: true, schema: { type: 'integer' } },
        // Only refused calls had these: the installation accepted no value of theirs.
        { name: 'arg0', required: false, schema: false },
        { name: 'arg1', required: false, schema: false },
        { name: 'extra', required: false, schema: false },
      ],
    });
    // A refused call by position is written by the declared names when they are enough.
    const paramsOf = (get!.examples as { params: { name: string; value: unknown }[] }[]).map((e) =>
      Object.fromEntries(e.params.map((p) => [p.name, p.value])),
    );
    expect(paramsOf).toEqual([
      { id: 1 },
      { id: 'one' },
      { id: 'x' },
      { arg0: 'x', arg1: 'y' },
      {},
      { id: 2, extra: true },
      { id: 9 },
    ]);
    expect(get!.examples).toContainEqual(expect.objectContaining({ 'x-http-status': 500 }));
    expect(nope).toMatchObject({ params: [{ name: 'q', required: false, schema: false }] });
    // Read back, the refused examples are still refused (x-http-status kept), and recording
    // again learns the same.
    const parsed = parseOpenRpcInstance('crm', doc, 'f');
    expect(parsed.methods.get('get')!.examples.find((e) => e.httpStatus === 500)?.params).toEqual({
      id: 2,
      extra: true,
    });
    const again = new InstanceRecording('crm', { document: doc, methods: parsed.methods });
    again.add('get', { id: 3 }, { result: { n: 'c' } });
    const reread = (again.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(reread.params).toEqual(get!.params);
    expect(reread.paramStructure).toBe('by-name');
  });

  it('notifications are the evidence only while no call was accepted', () => {
    const r = new InstanceRecording('t');
    r.add('ping', { at: 'now' }, undefined);
    const only = (r.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(only.params).toEqual([{ name: 'at', required: true, schema: { type: 'string' } }]);
    r.add('ping', { at: 1 }, { result: true });
    const answered = (r.document(undefined).methods as Record<string, unknown>[])[0]!;
    expect(answered.params).toEqual([{ name: 'at', required: true, schema: { type: 'integer' } }]);
  });
});

describe('contractProblems: error codes', () => {
  it('an error the method does not list is reported; the protocol’s own codes are not', () => {
    const dir = copyFixtures();
    try {
      writeFileSync(
        join(dir, 'instances', 'shop.openrpc.json'),
        JSON.stringify({
          openrpc: '1.2.6',
          info: { title: 'shop', version: '1' },
          methods: [
            { name: 'listed', params: [], errors: [{ code: 8, message: 'eight' }] },
            { name: 'free', params: [] },
          ],
        }),
      );
      const fixtures = loadFixtures(dir);
      const fail = (method: string, code: number) =>
        contractProblems(fixtures, 'shop', [
          { method, params: undefined, outcome: { error: { code, message: 'x' } } },
        ]).map((p) => p.problem);
      expect(fail('listed', 8)).toEqual([]);
      expect(fail('listed', 7)).toEqual(['error 7 is not declared']);
      // Server-defined codes (-32099…-32000) are the service's own errors: listed or reported.
      expect(fail('listed', -32004)).toEqual(['error -32004 is not declared']);
      expect(fail('listed', -32000)).toEqual(['error -32000 is not declared']);
      for (const code of [-32700, -32600, -32601, -32602, -32603, -32100, -32768])
        expect(fail('listed', code), String(code)).toEqual([]);
      // A method that declares no errors is not checked for them.
      expect(fail('free', 7)).toEqual([]);
      // A call to method "" is a call (the mock answers it -32601): a method no fixture has.
      const notFound = '{"jsonrpc":"2.0","error":{"code":-32601,"message":"no"},"id":1}';
      const empty = pairCalls('{"jsonrpc":"2.0","method":"","id":1}', notFound);
      expect(contractProblems(fixtures, 'shop', empty).map((p) => p.problem)).toEqual([
        'unknown method',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('distinctExamples (one pairing per distinct params, once secrets are masked)', () => {
  it('two calls whose params differed only by a secret are one pairing: the later one', () => {
    const recording = new InstanceRecording('shop');
    recording.add('echo', { a: 'code-1', b: 1 }, { result: 'first' });
    recording.add('echo', { b: 1, a: 'code-2' }, { result: 'second' });
    recording.add('echo', { a: 'plain', b: 1 }, { result: 'third' });
    const secrets = new SecretValues();
    secrets.add('code-1');
    secrets.add('code-2');
    const written = distinctExamples(secrets.mask(recording.document(undefined))) as {
      methods: { examples: { params: unknown[]; result: { value: unknown } }[] }[];
    };
    expect(written.methods[0]!.examples.map((e) => e.result.value)).toEqual(['second', 'third']);
    // Without secrets in them, distinct params stay distinct.
    const plain = distinctExamples(recording.document(undefined)) as typeof written;
    expect(plain.methods[0]!.examples).toHaveLength(3);
  });

  it('an HTTP error never takes the place of an answer of the method’s own', () => {
    const recording = new InstanceRecording('shop');
    const refused = httpErrorOutcome(401, '{"error":"invalid_token"}');
    recording.add('open', { user: 'ada', password: 'pw-one-secret' }, { result: 'opened' });
    // The same params, but for the secret: one pairing once masked, the method's own answer.
    recording.add('open', { user: 'ada', password: 'pw-two-secret' }, refused, { httpStatus: 401 });
    // The same params exactly: the answer stays too.
    recording.add('open', { user: 'ada', password: 'pw-one-secret' }, refused, { httpStatus: 401 });
    recording.add('open', { user: 'bob' }, refused, { httpStatus: 401 });
    recording.add('open', { user: 'bob' }, { result: 'later' });
    const secrets = new SecretValues();
    secrets.add('pw-one-secret');
    secrets.add('pw-two-secret');
    const written = distinctExamples(secrets.mask(recording.document(undefined))) as {
      methods: { examples: Record<string, unknown>[] }[];
    };
    expect(written.methods[0]!.examples.map((e) => e.result ?? e['x-error'])).toEqual([
      { name: 'result', value: 'opened' },
      { name: 'result', value: 'later' },
    ]);
  });

  it('leaves $ref pairings and documents without methods alone', () => {
    const ref = { $ref: '#/components/examplePairings/X' };
    const document = { methods: [{ name: 'm', examples: [ref, ref] }] };
    expect(distinctExamples(document)).toEqual(document);
    expect(distinctExamples({ openrpc: '1.2.6' })).toEqual({ openrpc: '1.2.6' });
  });
});

describe('httpErrorOutcome (an HTTP error kept as an example)', () => {
  it('names the status and an RFC 6749 error; a JSON-RPC error for the whole request is itself', () => {
    expect(
      httpErrorOutcome(401, '{"error":"invalid_token","error_description":"expired"}'),
    ).toEqual({
      error: {
        code: -32000,
        message: 'HTTP 401: invalid_token (expired)',
        data: { error: 'invalid_token', error_description: 'expired' },
      },
    });
    expect(httpErrorOutcome(502, '<html>Bad gateway</html>')).toEqual({
      error: { code: -32000, message: 'HTTP 502' },
    });
    const invalid =
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}';
    expect(httpErrorOutcome(400, invalid)).toEqual({
      error: { code: -32600, message: 'Invalid Request' },
    });
    // The answer to another call is no answer to this one.
    const other = '{"jsonrpc":"2.0","id":5,"error":{"code":-32004,"message":"Not found"}}';
    expect(httpErrorOutcome(503, other)).toMatchObject({
      error: { code: -32000, message: 'HTTP 503' },
    });
  });
});

describe('proxy headers and failures', () => {
  it('drops hop-by-hop headers, Host, Expect, and what Connection names; keeps names as sent', () => {
    expect(
      endToEndHeaders(
        [
          'Host',
          'a',
          'Connection',
          'keep-alive, X-Private',
          'x-private',
          '1',
          'Keep-Alive',
          'timeout=5',
          'transfer-encoding',
          'chunked',
          'Proxy-Authorization',
          'Basic x',
          'Expect',
          '100-continue',
          'Content-Length',
          '2',
          'Authorization',
          'Bearer t',
          'set-cookie',
          'a=1',
          'Set-Cookie',
          'b=2',
        ],
        new Set(['content-length']),
      ),
    ).toEqual(['Authorization', 'Bearer t', 'set-cookie', 'a=1', 'Set-Cookie', 'b=2']);
  });
  it('Connection: keep-alive names nothing more; other tokens name what is dropped', () => {
    const rest = ['X-Keep', '1', 'Close', 'reserved'];
    expect(endToEndHeaders(['Connection', 'Keep-Alive', ...rest])).toEqual(rest);
    expect(endToEndHeaders(['Connection', 'close', ...rest])).toEqual(['X-Keep', '1']);
    expect(endToEndHeaders(['Connection', ' KEEP-ALIVE ,x-keep ', ...rest])).toEqual([
      'Close',
      'reserved',
    ]);
  });
  it('reads a raw list by lower-case name, repeated values joined', () => {
    const raw = ['Set-Cookie', 'a=1', 'Content-Type', 'text/plain', 'set-cookie', 'b=2'];
    expect(rawHeader(raw, 'set-cookie')).toBe('a=1, b=2');
    expect(rawHeader(raw, 'content-type')).toBe('text/plain');
    expect(rawHeader(raw, 'location')).toBeUndefined();
    const bytes = ['X-Name', 'c\u00e9', 'Connection', 'x-hop', 'X-Hop', '1', 'Keep-Alive', '5'];
    expect(answerHeaders(bytes.map((text) => Buffer.from(text, 'latin1')))).toEqual([
      'X-Name',
      'c\u00e9',
    ]);
  });
  it('502 naming the upstream (and a proxy that refused the tunnel); 504 on a timeout', () => {
    const refused = upstreamFailure(
      'http://up.test',
      Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    );
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the upstream http://up.test is unreachable (ECONNREFUSED)',
      upstream: 'http://up.test',
    });
    const slow = upstreamFailure('http://up.test', { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(slow.status).toBe(504);
    // HTTP(S)_PROXY refusing the tunnel, as undici tells it: a numeric code, then its words.
    const tunnel = upstreamFailure(
      'http://up.test',
      Object.assign(new Error('Request was cancelled.'), {
        code: 0,
        cause: new Error('Proxy response (407) !== 200 when HTTP Tunneling'),
      }),
    );
    expect(tunnel.status).toBe(502);
    expect(JSON.parse(tunnel.body)).toMatchObject({
      error_description:
        'the upstream http://up.test is unreachable: the proxy refused to connect to it (HTTP 407)',
    });
  });
});

describe('members named like Object.prototype’s (a recorded answer is data, whatever its names)', () => {
  // JSON.parse makes `__proto__` an own member; a copy by assignment would set a prototype instead.
  const answer = JSON.parse('{"__proto__":{"x":1},"constructor":"c","k":[{"__proto__":2}]}');

  it('scrub, SecretValues.mask and inferSchema keep them as members', () => {
    expect(JSON.stringify(scrub(answer, parseScrubList(['other'])))).toBe(JSON.stringify(answer));
    expect(JSON.stringify(new SecretValues().mask(answer))).toBe(JSON.stringify(answer));
    const schema = inferSchema(answer);
    expect(Object.keys(schema.properties as object)).toEqual(['__proto__', 'constructor', 'k']);
    expect(schema.required).toEqual(['__proto__', 'constructor', 'k']);
  });

  it('mergeSchemas merges own members only', () => {
    const merged = mergeSchemas(inferSchema({ a: 1 }), inferSchema(answer));
    const properties = merged.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['a', '__proto__', 'constructor', 'k']);
    expect(properties.constructor).toEqual({ type: 'string' });
    expect(merged.required).toEqual([]);
  });

  it('an OpenRPC example with a param named __proto__ is matched by it', () => {
    const instance = parseOpenRpcInstance(
      'x',
      {
        openrpc: '1.2.6',
        info: { title: 'x', version: '1' },
        methods: [
          {
            name: 'm',
            params: [{ name: '__proto__', schema: {} }],
            result: { name: 'r', schema: {} },
            examples: [
              {
                name: 'e',
                params: [{ name: '__proto__', value: 7 }],
                result: { name: 'r', value: 1 },
              },
            ],
          },
        ],
      },
      'x.openrpc.json',
    );
    const [example] = instance.methods.get('m')!.examples!;
    expect(Object.keys(example!.params)).toEqual(['__proto__']);
    expect(findExample([example!], JSON.parse('{"__proto__":7}'))).toBe(example);
    expect(findExample([example!], {})).toBeUndefined();
  });
});
