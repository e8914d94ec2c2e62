import { UsageError } from '../../errors.js';
import type { MockOptions } from '../core/types.js';
import { startMockServer } from './mock-server.js';

/** What `dasvc mock` runs: start, announce, log each request, stop on SIGINT/SIGTERM. */
export async function runMock(options: MockOptions & { quiet: boolean }): Promise<void> {
  const { quiet, ...rest } = options;
  const out = (line: string) => {
    process.stdout.write(`${line}\n`);
  };
  let server;
  try {
    server = await startMockServer({
      ...rest,
      ...(quiet ? {} : { log: out }),
      // Contract violations and recording failures are problems: stderr, even with --quiet.
      warn: (line) => void process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${code}`, {
        code,
        hint: 'choose another --port (0 picks a free one) or --host',
        cause: error,
      });
    }
    throw error;
  }
  // SPEC §3: the first stdout line is exactly `listening on <base_url>`. `--quiet` leaves out all
  // that follows it (credentials, users, request lines): scripts read one line and nothing else.
  out(`listening on ${server.url}`);
  if (!quiet && options.proxy !== undefined) {
    // SPEC §6: the upstream's clients and users are the ones that count.
    out(`proxying to ${options.proxy}`);
    if (options.record !== undefined) out(`recording into ${options.record}`);
    if (options.validate) out(`validating against ${options.fixtures}`);
  } else if (!quiet) {
    const client = server.demoClient;
    if (client) {
      const secret = client.secret === undefined ? ' (public)' : ` client_secret=${client.secret}`;
      out(`demo client: client_id=${client.id}${secret}`);
    }
    out(`users: ${server.users}`);
    if (options.autoApprove !== undefined) out(`auto-approving as ${options.autoApprove}`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
}
