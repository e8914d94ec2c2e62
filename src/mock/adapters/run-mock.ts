import type { MockOptions } from '../core/types.js';
import type { JournalEntry } from '../core/journal.js';
import { formatLogLine, type Painter } from '../core/log-line.js';
import { serveMock } from './mock-server.js';
import type { Env } from '../../util/env.js';
import { loadStyles, plain } from '../../util/styles.js';

/** How `dasvc mock` prints: `json` (global --json) and `color` (not --no-color). */
export interface RunMockOptions extends MockOptions {
  quiet: boolean;
  json?: boolean;
  color?: boolean;
}

/** Where a line goes: a stream, or a buffer in tests; colour depends on whether it is a TTY. */
interface Sink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What `dasvc mock` runs with besides its options: the run's own terminal, environment and stop. */
export interface RunMockIo {
  stdout: Sink;
  stderr: Sink;
  /** Colour (NO_COLOR, FORCE_COLOR), and the proxy's timeout and proxy variables. */
  env: Env;
  /**
   * Aborted to stop the mock: with the reason 'SIGTERM' as a supervisor stops a server, with any
   * other as Ctrl-C.
   */
  stop: AbortSignal;
}

/** How the mock was stopped. */
export type MockStop = 'SIGINT' | 'SIGTERM';

/**
 * Status-class colours on a terminal (as every colour of dasvc: NO_COLOR, FORCE_COLOR and
 * --no-color honoured); undefined when piped, so that a log file never holds escape codes.
 */
async function painter(enabled: boolean, io: RunMockIo): Promise<Painter | undefined> {
  const style = await loadStyles(enabled, io.stdout, io.env);
  if (style === plain) return undefined;
  return (status, text) =>
    status >= 500 || status === 0
      ? style.red(text)
      : status >= 400
        ? style.yellow(text)
        : status >= 300
          ? style.cyan(text)
          : style.green(text);
}

/** Resolves with how `stop` was aborted, once it is. */
function stopped(stop: AbortSignal): Promise<MockStop> {
  const how = (): MockStop => (stop.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
  if (stop.aborted) return Promise.resolve(how());
  return new Promise((resolve) => {
    stop.addEventListener('abort', () => resolve(how()), { once: true });
  });
}

/**
 * What `dasvc mock` runs: start, announce, log each request (a text line, or with `json` one
 * JSON object per line), stop when `io.stop` is aborted; resolves with how, once closed.
 */
export async function runMock(options: RunMockOptions, io: RunMockIo): Promise<MockStop> {
  const { quiet, json = false, color = true, ...rest } = options;
  const out = (line: string) => {
    io.stdout.write(`${line}\n`);
  };
  const err = (line: string) => {
    io.stderr.write(`${line}\n`);
  };
  // Under --json stdout carries the listening line, then JSON objects only; the rest is stderr.
  const say = json ? err : out;
  const paint = json ? undefined : await painter(color, io);
  const onRequest = json
    ? (entry: JournalEntry) => out(JSON.stringify(entry))
    : (entry: JournalEntry) => out(formatLogLine(entry, paint));
  // A port in use or a host not here is a usage error naming them (startMockServer).
  const server = await serveMock(
    {
      ...rest,
      // --quiet: nothing after the listening line, request lines and messages alike; a log
      // function would also receive every request line.
      ...(quiet ? {} : { log: say, onRequest }),
      // Contract violations and recording failures are problems: stderr, even with --quiet.
      warn: err,
    },
    io.env,
  );
  // The first stdout line is exactly `listening on <base_url>`. `--quiet` leaves out all that
  // follows it (credentials, users, request lines): scripts read one line and nothing else.
  out(`listening on ${server.url}`);
  // `--json`: the fixtures' warnings as objects of the log, each example with file and pointer.
  if (json) for (const warning of server.warnings ?? []) out(JSON.stringify({ warning }));
  if (!quiet && options.proxy !== undefined) {
    // The upstream's clients and users are the ones that count.
    out(`proxying to ${options.proxy}`);
    if (options.record !== undefined) out(`recording into ${options.record}`);
    if (options.validate) out(`validating against ${options.fixtures}`);
  } else if (!quiet) {
    const client = server.demoClient;
    if (client) {
      const secret = client.secret === undefined ? ' (public)' : ` client_secret=${client.secret}`;
      say(`demo client: client_id=${client.id}${secret}`);
    }
    say(`users: ${server.users}`);
    if (options.autoApprove !== undefined) say(`auto-approving as ${options.autoApprove}`);
    say(`dashboard: ${server.url}/_mock/`);
  }
  const how = await stopped(io.stop);
  await server.close();
  return how;
}
