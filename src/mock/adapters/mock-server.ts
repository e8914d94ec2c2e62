import { UsageError } from '../../errors.js';
import { checkPort } from '../../util/port.js';
import type { Untyped } from '../../client/typed-api.js';
import type { Env } from '../../util/env.js';
import type { MockOptions } from '../core/types.js';
import { checkMockOptions, createMockCore } from '../core/mock-core.js';
import type { FixtureWarning } from '../fixture-format/fixture-format.js';
import { serveNode } from './node-server.js';
import { parseServerTimeouts } from './server-timeouts.js';
import { LISTEN_ERRORS } from '../../util/listen-errors.js';

/** A running mock server. */
export interface MockServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close(): Promise<void>;
  /** The client to show first: `demo-client` when the fixtures have it. */
  demoClient?: { id: string; secret: string | undefined };
  /** `alice (crm, wiki), bob (crm)`: who may approve, and where. */
  users?: string;
  /** Example pairings of the fixtures that contradict their schemas, as far as known. */
  warnings?: FixtureWarning[];
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the mock on node:http (`dasvc mock`). Fixtures, handler modules and the state file are
 * loaded before listening, so a broken one is a startup error naming the file; the routes load
 * just after, while the caller announces the URL.
 */
export function startMockServer<A = Untyped>(options: MockOptions<A> = {}): Promise<MockServer> {
  // `A` types the `methods` option only: any functions are taken at run time.
  return serveMock(options as MockOptions);
}

/**
 * The server's own options (port, host, timeouts), checked. The app and the msw handlers, which
 * take the same options object, refuse them bad too, though no server of theirs reads them.
 */
export function serverOptions(options: MockOptions) {
  const port = checkPort(options.port ?? 8080, '--port (option port)');
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') {
    throw new UsageError(
      `--host (option host) must be a host name or address, got ${JSON.stringify(host)}`,
      { code: 'bad_host' },
    );
  }
  return { port, host, timeouts: parseServerTimeouts(options) };
}

/** startMockServer, the proxy's variables read from `env` (a `dasvc mock` run's own) when given. */
export async function serveMock(options: MockOptions, env?: Env): Promise<MockServer> {
  checkMockOptions(options);
  const { port, host, timeouts } = serverOptions(options);
  const core = createMockCore(options, env);
  await core.ready();
  let served;
  try {
    served = await serveNode(core.handle, host, port, timeouts);
  } catch (error) {
    await core.close();
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno && LISTEN_ERRORS.has(errno)) {
      throw new UsageError(`cannot listen on ${host}:${port}: ${errno}`, {
        code: 'listen_failed',
        facts: { host, port, errno },
        cause: error,
      });
    }
    throw error;
  }
  // setImmediate: after the caller's synchronous "listening on" line, not before it.
  setImmediate(() => core.warm().catch(() => undefined));
  const clients = core.ctx.fixtures.clients;
  const demoClient = clients.get('demo-client') ?? clients.values().next().value;
  const users = [...core.ctx.fixtures.users.values()]
    .map((u) => `${u.id} (${[...u.instances].join(', ')})`)
    .join(', ');
  return {
    url: `http://${urlHost(host)}:${served.port}`,
    ...(demoClient ? { demoClient } : {}),
    users,
    warnings: core.ctx.fixtures.warnings,
    close: async () => {
      core.closing();
      await served.close();
      await core.close();
    },
  };
}
