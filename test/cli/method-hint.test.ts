import { describe, expect, it } from 'vitest';
import { InterruptedError, NetworkError } from '../../src/errors.js';
import { typedParamHint, unknownMethodHint } from '../../src/cli/hints/method-hint.js';
import { stringItems } from '../../src/rpc/params.js';
import type { ApiAnswer } from '../../src/rpc/jsonrpc.js';

/** An answer as the client gives it: the parsed body and its text. */
const jsonAnswer = (body: unknown): ApiAnswer => ({
  kind: 'json',
  body,
  text: JSON.stringify(body),
});

const notFound: ApiAnswer = jsonAnswer({
  jsonrpc: '2.0',
  error: { code: -32601, message: 'Method not found' },
  id: 1,
});
const discovered: ApiAnswer = jsonAnswer({
  jsonrpc: '2.0',
  result: { openrpc: '1.2.6', methods: [{ name: 'contacts.list' }, { name: 'deals.list' }] },
  id: 1,
});

describe('unknownMethodHint (SPEC §3: -32601 names the nearest methods)', () => {
  it('names the nearest methods that rpc.discover lists', async () => {
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', async () => discovered)).toBe(
      'did you mean contacts.list? (dasvc rpc crm rpc.discover lists them all)',
    );
    expect(await unknownMethodHint(notFound, 'crm', 'list', async () => discovered)).toBe(
      'did you mean deals.list or contacts.list? (dasvc rpc crm rpc.discover lists them all)',
    );
  });

  it('with no close spelling, still names the nearest there are', async () => {
    expect(await unknownMethodHint(notFound, 'crm', 'weather', async () => discovered)).toBe(
      'the nearest methods of crm: deals.list, contacts.list (dasvc rpc crm rpc.discover lists them all)',
    );
    const none: ApiAnswer = jsonAnswer({
      jsonrpc: '2.0',
      result: { openrpc: '1.2.6', methods: [] },
      id: 1,
    });
    expect(await unknownMethodHint(notFound, 'crm', 'weather', async () => none)).toBeUndefined();
  });

  it('asks rpc.discover only after -32601 to a single call', async () => {
    let asked = 0;
    const discover = async () => {
      asked++;
      return discovered;
    };
    const other: ApiAnswer = jsonAnswer({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params' },
      id: 1,
    });
    expect(await unknownMethodHint(other, 'crm', 'contact.list', discover)).toBeUndefined();
    expect(await unknownMethodHint({ kind: 'none' }, 'crm', 'x', discover)).toBeUndefined();
    expect(await unknownMethodHint(notFound, 'crm', undefined, discover)).toBeUndefined();
    expect(await unknownMethodHint(notFound, 'crm', 'rpc.discover', discover)).toBeUndefined();
    expect(asked).toBe(0);
  });

  it('gives no hint when rpc.discover fails, but lets Ctrl-C through', async () => {
    const failing = async (): Promise<ApiAnswer> => {
      throw new NetworkError('cannot reach http://127.0.0.1:9');
    };
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', failing)).toBeUndefined();
    const refused = async (): Promise<ApiAnswer> => notFound;
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', refused)).toBeUndefined();
    const interrupted = async (): Promise<ApiAnswer> => {
      throw new InterruptedError('interrupted');
    };
    await expect(
      unknownMethodHint(notFound, 'crm', 'contact.list', interrupted),
    ).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('typedParamHint (a -32602 for a param given as a k=v string)', () => {
  const invalid = (data: unknown, message = 'Invalid params'): ApiAnswer =>
    jsonAnswer({ jsonrpc: '2.0', error: { code: -32602, message, data }, id: 1 });
  const items = (...list: string[]) => stringItems(list);

  it('hints k:=v when the error says that param must be a number, boolean, array or object', () => {
    expect(typedParamHint(invalid('id must be integer'), items('id=1'))).toBe(
      'id=1 sent the string "1"; id:=1 sends it as JSON',
    );
    expect(typedParamHint(invalid('"flag" should be a boolean'), items('flag=true'))).toBe(
      'flag=true sent the string "true"; flag:=true sends it as JSON',
    );
    expect(typedParamHint(invalid('', "'tags' must be of type array"), items('tags=a b'))).toBe(
      `'tags=a b' sent the string "a b"; tags:=<JSON> sends it as JSON`,
    );
    expect(typedParamHint(invalid({ why: 'filter must be object' }), items('filter=@f.json'))).toBe(
      `filter=@f.json sent the file's text as a string; filter:=@f.json sends it as JSON`,
    );
    expect(typedParamHint(invalid('n must be integer,null'), items('a=x', 'n=2'))).toBe(
      'n=2 sent the string "2"; n:=2 sends it as JSON',
    );
  });

  it('says nothing for a typed param, another param, another type or another error', () => {
    expect(typedParamHint(invalid('id must be integer'), items('id:=1'))).toBeUndefined();
    expect(typedParamHint(invalid('id must be integer'), items('{"id":"1"}'))).toBeUndefined();
    expect(typedParamHint(invalid('userid must be integer'), items('id=1'))).toBeUndefined();
    expect(typedParamHint(invalid('page/id must be integer'), items('id=1'))).toBeUndefined();
    expect(typedParamHint(invalid('id must be string'), items('id=1'))).toBeUndefined();
    expect(typedParamHint(invalid('id must be >= 1'), items('id=0'))).toBeUndefined();
    expect(typedParamHint(notFound, items('id=1'))).toBeUndefined();
    expect(typedParamHint({ kind: 'none' }, items('id=1'))).toBeUndefined();
  });
});
