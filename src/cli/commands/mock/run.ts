import { InterruptedError, UsageError } from '../../../errors.js';
import { serverStopSignal } from '../../interrupt.js';
import type { ContextIo } from '../../io.js';
import { stdoutAnswered } from '../../output.js';
import { parsePort } from '../../port.js';
// Static: this module loads only to run the mock, and one module-loading round less shortens
// the time to listening.
import { runMock, type RunMockIo } from '../../../mock/adapters/run-mock.js';

/** Options of `dasvc mock` as the flags give them. */
export interface MockCommandOptions {
  port: string;
  host: string;
  fixtures?: string;
  autoApprove?: string;
  codeTtl: string;
  accessTtl: string;
  refreshTtl: string;
  stateFile?: string;
  headersTimeout: string;
  requestTimeout: string;
  quirks?: string;
  proxy?: string;
  record?: string;
  recordUser?: string;
  validate?: boolean;
  scrub?: string;
  quiet?: boolean;
  journalSize: string;
  /** Global --verbose: every example pairing that contradicts its schemas, a line each. */
  verbose?: boolean;
  /** Global --json: one JSON object per request line. */
  json?: boolean;
  /** Global --no-color. */
  color?: boolean;
}

/**
 * The mock's I/O from the run's (a test's, in-process) or the process's: its stdout, stderr and
 * environment, and the SIGINT/SIGTERM that main.ts turns into serverStopSignal().
 */
export function mockIo(io: ContextIo): RunMockIo {
  return {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    stop: io.signal ?? serverStopSignal(),
  };
}

/** `dasvc mock`: flags → the options of runMock, which serves until `io.stop`. */
export async function run(options: MockCommandOptions, io: RunMockIo): Promise<void> {
  const port = parsePort(options.port);
  const stop = await runMock(
    {
      port,
      host: options.host,
      codeTtl: options.codeTtl,
      accessTtl: options.accessTtl,
      refreshTtl: options.refreshTtl,
      headersTimeout: options.headersTimeout,
      requestTimeout: options.requestTimeout,
      ...(options.fixtures === undefined ? {} : { fixtures: options.fixtures }),
      ...(options.autoApprove === undefined ? {} : { autoApprove: options.autoApprove }),
      ...(options.stateFile === undefined ? {} : { stateFile: options.stateFile }),
      ...(options.quirks === undefined ? {} : { quirks: options.quirks }),
      ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
      ...(options.record === undefined ? {} : { record: options.record }),
      ...(options.recordUser === undefined ? {} : { recordUser: options.recordUser }),
      ...(options.validate ? { validate: true } : {}),
      ...(options.scrub === undefined ? {} : { scrub: options.scrub }),
      quiet: options.quiet === true,
      verbose: options.verbose === true,
      journalSize: parseJournalSize(options.journalSize),
      json: options.json === true,
      color: options.color !== false,
    },
    io,
  );
  // Ctrl-C anywhere exits 130: here once the mock has closed cleanly (state file compacted,
  // recording complete). SIGTERM, the way a supervisor stops a server, exits 0. stdout (the
  // --json log) gets no error object: it stays the log.
  if (stop === 'SIGINT') {
    throw stdoutAnswered(
      new InterruptedError('interrupted; the mock closed cleanly', { code: 'interrupted' }),
    );
  }
}

/** Digits only; the range (1 to 1 000 000) is checked by the mock itself. */
function parseJournalSize(text: string): number {
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new UsageError(`--journal-size must be a whole number, got "${text}"`, {
      code: 'bad_journal_size',
    });
  }
  return Number(text);
}
