import { describe, expect, it } from 'vitest';
import { InterruptedError, NetworkError } from '../../src/errors.js';
import { unknownMethodHint } from '../../src/cli/method-hint.js';
import type { ApiAnswer } from '../../src/rpc/jsonrpc.js';

const notFound: ApiAnswer = {
  kind: 'json',
  body: { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 1 },
};
const discovered: ApiAnswer = {
  kind: 'json',
  body: {
    jsonrpc: '2.0',
    result: { openrpc: '1.2.6', methods: [{ name: 'contacts.list' }, { name: 'deals.list' }] },
    id: 1,
  },
};

describe('unknownMethodHint (SPEC §3: -32601 names the nearest methods)', () => {
  it('names the nearest methods that rpc.discover lists', async () => {
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', async () => discovered)).toBe(
      'did you mean contacts.list? (dasvc rpc crm rpc.discover lists them all)',
    );
    expect(await unknownMethodHint(notFound, 'crm', 'list', async () => discovered)).toBe(
      'did you mean deals.list or contacts.list? (dasvc rpc crm rpc.discover lists them all)',
    );
  });

  it('asks rpc.discover only after -32601 to a single call', async () => {
    let asked = 0;
    const discover = async () => {
      asked++;
      return discovered;
    };
    const other: ApiAnswer = {
      kind: 'json',
      body: { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' }, id: 1 },
    };
    expect(await unknownMethodHint(other, 'crm', 'contact.list', discover)).toBeUndefined();
    expect(await unknownMethodHint({ kind: 'none' }, 'crm', 'x', discover)).toBeUndefined();
    expect(await unknownMethodHint(notFound, 'crm', undefined, discover)).toBeUndefined();
    expect(await unknownMethodHint(notFound, 'crm', 'rpc.discover', discover)).toBeUndefined();
    expect(asked).toBe(0);
  });

  it('gives no hint when rpc.discover fails or names nothing near, but lets Ctrl-C through', async () => {
    const failing = async (): Promise<ApiAnswer> => {
      throw new NetworkError('cannot reach http://127.0.0.1:9');
    };
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', failing)).toBeUndefined();
    const refused = async (): Promise<ApiAnswer> => notFound;
    expect(await unknownMethodHint(notFound, 'crm', 'contact.list', refused)).toBeUndefined();
    expect(
      await unknownMethodHint(notFound, 'crm', 'weather.today', async () => discovered),
    ).toBeUndefined();
    const interrupted = async (): Promise<ApiAnswer> => {
      throw new InterruptedError('interrupted');
    };
    await expect(
      unknownMethodHint(notFound, 'crm', 'contact.list', interrupted),
    ).rejects.toBeInstanceOf(InterruptedError);
  });
});
