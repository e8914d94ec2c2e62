// SPEC §1: the mock's library options mirror the `dasvc mock` flags, and a bad one fails as the
// flag does — a DasvcError of kind usage (exit code 2) naming it — never a TypeError, a RangeError
// of node:http, or a server listening somewhere else than asked (a string port is a pipe path to
// node:http).
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createMockApp, startMockServer } from '../../src/mock/index.js';
import { createMockHandlers } from '../../src/mock/msw.js';

const usage = (message: RegExp) =>
  expect.objectContaining({ kind: 'usage', exitCode: 2, message: expect.stringMatching(message) });

describe('startMockServer, createMockApp and createMockHandlers with bad options', () => {
  it.each([
    [{ port: 'abc' }, /--port \(option port\) must be a whole number from 0 to 65535, got "abc"/],
    [{ port: -1 }, /--port \(option port\) must be a whole number from 0 to 65535, got -1/],
    // A number written as a string is not one: the quotes in the message show it.
    [{ port: '0' }, /--port \(option port\) must be a whole number from 0 to 65535, got "0"/],
    [{ port: 70000 }, /got 70000/],
    [{ port: 1.5 }, /got 1.5/],
    [{ host: '' }, /--host \(option host\)/],
    [
      { port: 0, host: 'nonexistent.invalid' },
      /cannot listen on nonexistent\.invalid:0: (ENOTFOUND|EAI_AGAIN)/,
    ],
    [{ port: 0, codeTtl: true }, /--code-ttl \(option codeTtl\) must be a duration/],
    // A credential of the mock's own would only be shown, in 502 answers and the log.
    [
      { port: 0, proxy: 'http://user:PW-123@127.0.0.1:9' },
      /^--proxy must not carry a user name or password: the mock sends none of its own$/,
    ],
  ])('startMockServer(%j) rejects with a usage error naming it', async (options, message) => {
    const starting = startMockServer(options as never);
    // A server that wrongly started is closed all the same.
    starting.then(
      (s) => s.close(),
      () => undefined,
    );
    await expect(starting).rejects.toEqual(usage(message));
    expect(existsSync('abc')).toBe(false);
  });

  it('a port in use is a usage error naming host and port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const starting = startMockServer({ port });
      starting.then(
        (s) => s.close(),
        () => undefined,
      );
      await expect(starting).rejects.toEqual(
        usage(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`)),
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a JavaScript caller: no options object, an unknown option, a value of another kind', async () => {
    for (const [options, message] of [
      [null, /^the mock: its options must be an object, got null$/],
      [{ fixture: 'x' }, /^the mock: unknown option "fixture" \(did you mean fixtures\?\)$/],
      [{ log: 'x' }, /^the mock: option log must be a function, got "x"$/],
      [{ fixtures: 5 }, /^the mock: option fixtures must be a string, got 5$/],
      [{ basePath: 5 }, /option basePath must be a string/],
      [{ proxy: 10n }, /option proxy must be a string, got a bigint/],
    ] as const) {
      expect(() => createMockApp(options as never), String(message)).toThrow(usage(message));
      const starting = startMockServer(
        (options === null ? null : { port: 0, ...(options as object) }) as never,
      );
      starting.then(
        (s) => s.close(),
        () => undefined,
      );
      await expect(starting).rejects.toEqual(usage(message));
    }
    expect(() => createMockHandlers(undefined as never)).toThrow(usage(/^baseUrl must be/));
    // The options mirror the flags: the server's port and host are taken (and mean nothing to
    // handlers); a basePath, which baseUrl would replace, is refused rather than dropped.
    const shared = { baseUrl: 'http://x.test', port: 0, host: '127.0.0.1' };
    expect(createMockHandlers(shared)).toHaveLength(1);
    expect(() => createMockHandlers({ ...shared, basePath: '/x' } as never)).toThrow(
      usage(/^createMockHandlers\(\) takes no basePath: baseUrl says where it answers$/),
    );
    expect(() => createMockApp({ journalSize: '5' as never })).toThrow(usage(/got "5"$/));
  });

  it("the server's own options are checked wherever the options object goes", () => {
    for (const [bad, message] of [
      [{ port: 70_000 }, /^--port \(option port\) must be a whole number from 0 to 65535/],
      [{ port: 'x' }, /^--port \(option port\) must be a whole number/],
      [{ host: 5 }, /^--host \(option host\) must be a host name or address, got 5$/],
      [{ headersTimeout: 'zz' }, /--headers-timeout \(option headersTimeout\)/],
    ] as const) {
      expect(() => createMockApp(bad as never), String(message)).toThrow(usage(message));
      expect(() => createMockHandlers({ baseUrl: 'http://x.test', ...bad } as never)).toThrow(
        usage(message),
      );
    }
  });

  it('createMockApp names the option of a bad duration', () => {
    expect(() => createMockApp({ accessTtl: 0 })).toThrow(
      usage(/--access-ttl \(option accessTtl\) must be between 1s and 100 years/),
    );
  });

  it.each([{}, { baseUrl: 'not a url' }, { baseUrl: 'ftp://x.test' }])(
    'createMockHandlers(%j) throws a usage error naming baseUrl',
    (options) => {
      expect(() => createMockHandlers(options as never)).toThrow(
        usage(/^baseUrl must be the http\(s\) URL/),
      );
    },
  );
});
