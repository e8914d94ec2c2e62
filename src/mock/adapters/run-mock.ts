import type { MockOptions } from '../core/types.js';
import type { JournalEntry } from '../core/journal.js';
import { formatLogLine, type Painter } from '../core/log-line.js';
import { startMockServer } from './mock-server.js';
import { loadStyles, plain } from '../../util/styles.js';

/** How `dasvc mock` prints: `json` (global --json) and `color` (not --no-color). */
export interface RunMockOptions extends MockOptions {
  quiet: boolean;
  json?: boolean;
  color?: boolean;
}

/**
 * Status-class colours on a terminal (as every colour of dasvc: NO_COLOR, FORCE_COLOR and
 * --no-color honoured); undefined when piped, so that a log file never holds escape codes.
 */
async function painter(enabled: boolean): Promise<Painter | undefined> {
  const style = await loadStyles(enabled, process.stdout, process.env);
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

/**
 * What `dasvc mock` runs: start, announce, log each request (SPEC §8: a text line, or with
 * `json` one JSON object per line), stop on SIGINT/SIGTERM; resolves with the signal, once closed.
 */
export async function runMock(options: RunMockOptions): Promise<'SIGINT' | 'SIGTERM'> {
  const { quiet, json = false, color = true, ...rest } = options;
  const out = (line: string) => {
    process.stdout.write(`${line}\n`);
  };
  const err = (line: string) => {
    process.stderr.write(`${line}\n`);
  };
  // Under --json stdout carries the listening line, then JSON objects only; the rest is stderr.
  const say = json ? err : out;
  const paint = json ? undefined : await painter(color);
  const onRequest = json
    ? (entry: JournalEntry) => out(JSON.stringify(entry))
    : (entry: JournalEntry) => out(formatLogLine(entry, paint));
  // A port in use or a host not here is a usage error naming them (startMockServer).
  const server = await startMockServer({
    ...rest,
    // --quiet: nothing after the listening line, request lines and messages alike; a log
    // function would also receive every request line.
    ...(quiet ? {} : { log: say, onRequest }),
    // Contract violations and recording failures are problems: stderr, even with --quiet.
    warn: err,
  });
  // SPEC §3: the first stdout line is exactly `listening on <base_url>`. `--quiet` leaves out all
  // that follows it (credentials, users, request lines): scripts read one line and nothing else.
  out(`listening on ${server.url}`);
  // `--json`: the fixtures' warnings as objects of the log, each example with file and pointer.
  if (json) for (const warning of server.warnings ?? []) out(JSON.stringify({ warning }));
  if (!quiet && options.proxy !== undefined) {
    // SPEC §6: the upstream's clients and users are the ones that count.
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
  const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    const stop = (name: 'SIGINT' | 'SIGTERM') => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(name);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return signal;
}
