import { setMaxListeners } from 'node:events';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';
import type { Env } from '../../util/env.js';
import type { MockContext } from './context.js';
import type { MockOptions, MockRequest, MockResponse } from './types.js';
import { MAX_SECONDS } from './types.js';
import { compileSchemas, warningLines } from '../fixture-format/compile-schemas.js';
import { loadHandlers, needsLoading } from '../fixture-format/handler-modules.js';
import { loadFixtures } from '../fixture-format/load-fixtures.js';
import { MockState } from './mock-state.js';
import { DEFAULT_JOURNAL_SIZE, MAX_JOURNAL_SIZE } from './journal.js';
import { resolveQuirksOption } from './quirks.js';
import { loadStateFile } from './state-file.js';
import { StateJournal } from './state-journal.js';
import { checkProxyOptions } from '../proxy/proxy-options.js';
import { checkMethodOverrides } from './method-overrides.js';
import { checkLibraryOptions, type OptionKind } from '../../util/library-options.js';
import { checkWholeNumber } from '../../util/whole-number.js';

/** The mock as one handler over MockRequest, plus what the adapters need around it. */
export interface MockCore {
  handle(request: MockRequest): Promise<MockResponse>;
  /** Loads the JS modules of computed methods; rejects with a usage error naming the file. */
  ready(): Promise<void>;
  /** Loads the request handling ahead of the first request (which otherwise loads it). */
  warm(): Promise<void>;
  /** The server is closing: in-flight requests waiting on injected latency are answered now. */
  closing(): void;
  /** Writes the state file, if any. */
  close(): Promise<void>;
  readonly ctx: MockContext;
}

/** A TTL option: a duration of at least 1 s (a 0 s token would be born expired), at most 100 years. */
function parseLifetime(input: string | number, flag: string): number {
  const seconds = parseDuration(input, flag);
  if (!(seconds >= 1 && seconds <= MAX_SECONDS)) {
    throw new UsageError(`${flag} must be between 1s and 100 years, got ${String(input)}`, {
      code: 'bad_duration',
    });
  }
  return seconds;
}

/** The options the mock knows, as the library takes them (SPEC §1): each flag's camelCase. */
const MOCK_OPTIONS: Record<keyof MockOptions, OptionKind> = {
  port: 'checked',
  host: 'checked',
  fixtures: 'string',
  autoApprove: 'string',
  codeTtl: 'checked',
  accessTtl: 'checked',
  refreshTtl: 'checked',
  stateFile: 'string',
  log: 'function',
  onRequest: 'function',
  quiet: 'boolean',
  journalSize: 'checked',
  now: 'function',
  headersTimeout: 'checked',
  requestTimeout: 'checked',
  basePath: 'string',
  proxy: 'string',
  record: 'string',
  recordUser: 'string',
  validate: 'boolean',
  scrub: 'checked',
  warn: 'function',
  verbose: 'boolean',
  quirks: 'checked',
  methods: 'checked',
};

/** The options of startMockServer and createMockApp, checked before any is used. */
export function checkMockOptions(options: unknown): void {
  checkLibraryOptions(options, MOCK_OPTIONS, 'the mock');
}

/**
 * Builds the mock from its options (the `dasvc mock` flags); JSON fixtures and the state file
 * load at once, the routes (request-handler.ts) on the first request or warm(). `env` is what the
 * proxy reads its variables from (the process's when absent).
 */
export function createMockCore(options: MockOptions = {}, env?: Env): MockCore {
  const lifetimes = {
    codeSeconds: parseLifetime(options.codeTtl ?? '1h', '--code-ttl (option codeTtl)'),
    accessSeconds: parseLifetime(options.accessTtl ?? '1h', '--access-ttl (option accessTtl)'),
    refreshSeconds: parseLifetime(options.refreshTtl ?? '30d', '--refresh-ttl (option refreshTtl)'),
  };
  const upstream = checkProxyOptions(options);
  checkWholeNumber(
    options.journalSize ?? DEFAULT_JOURNAL_SIZE,
    [1, MAX_JOURNAL_SIZE],
    '--journal-size',
    'bad_journal_size',
  );
  const fixtures = loadFixtures(options.fixtures, options.proxy !== undefined);
  if (options.autoApprove !== undefined && !fixtures.users.has(options.autoApprove)) {
    throw new UsageError(
      `--auto-approve (option autoApprove): unknown user "${options.autoApprove}"`,
      {
        code: 'unknown_user',
        facts: { users: [...fixtures.users.keys()] },
      },
    );
  }
  const quirks = resolveQuirksOption(options.quirks);
  const methods = checkMethodOverrides(options.methods, fixtures, upstream !== undefined);
  const state = new MockState(lifetimes, options.now ?? Date.now);
  let stateJournal: StateJournal | undefined;
  if (options.stateFile !== undefined) {
    const snapshot = loadStateFile(options.stateFile);
    if (snapshot) state.restore(snapshot);
    stateJournal = new StateJournal(
      options.stateFile,
      () => state.snapshot(),
      snapshot !== undefined,
    );
    const write = stateJournal;
    state.onChange = (change) => write.append(change);
  }
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const ctx: MockContext = {
    fixtures,
    state,
    autoApprove: options.autoApprove,
    basePath,
    quirks,
    ...(methods ? { methods } : {}),
  };
  state.refreshOutlivesAccess = () => ctx.quirks.refreshAfterExpiry === true;
  let compiled = false;
  const compileOnce = () => {
    if (compiled) return;
    compiled = true;
    compileSchemas(fixtures);
    // Examples that contradict their schemas load, and are told.
    for (const line of warningLines(fixtures, options.verbose)) options.warn?.(line);
  };
  // A folder of one's own is checked whole as the mock is made: a schema that does not compile
  // (a pattern RE2 cannot run) is a usage error from createMockApp itself, not a 500 later.
  if (options.fixtures !== undefined) compileOnce();
  let loading: Promise<void> | undefined;
  // A plain --proxy serves nothing from the fixtures' methods (every call goes upstream): it
  // needs neither their schemas (ajv) nor their handler modules, only the proxy, before a call.
  const proxyOnly = upstream !== undefined && !options.validate && options.fixtures === undefined;
  let loaded = !needsLoading(fixtures) && upstream === undefined;
  let proxyStarting: Promise<void> | undefined;
  const startProxy = () =>
    (proxyStarting ??= (async () => {
      if (upstream === undefined) return;
      const { startProxying } = await import('../proxy/proxy-setup.js');
      ctx.proxy = await startProxying(upstream, options, fixtures, () => state.now(), env);
    })());
  let handlersLoading: Promise<void> | undefined;
  const loadHandlersOnce = () => (handlersLoading ??= loadHandlers(fixtures));
  const prepare = () => {
    if (proxyOnly) {
      loading ??= startProxy().then(() => {
        loaded = true;
      });
      return loading;
    }
    // Schemas compile (ajv loads) and handler modules import at once, before the first call;
    // the proxy starts after them (--validate checks against the compiled schemas).
    loading ??= Promise.all([Promise.resolve().then(compileOnce), loadHandlersOnce()])
      .then(startProxy)
      .then(() => {
        loaded = true;
      });
    return loading;
  };
  // The package's own fixtures are known good (a test compiles their schemas, others call their
  // computed methods): their schemas compile and their handler modules load after the mock
  // listens, so that `dasvc mock` (and `--proxy` without `--validate`, which does not serve them)
  // starts without ajv or one more round of module loading before it listens. Any other folder is checked whole before listening: a broken schema or handler
  // module is a start-up error naming the file (exit 2).
  const ready = async () => {
    if (options.fixtures !== undefined || options.validate) return prepare();
    await startProxy();
  };

  type Handle = (request: MockRequest) => Promise<MockResponse>;
  const shutdown = new AbortController();
  // Every request held by injected latency listens on it: no listener limit (and no warning).
  setMaxListeners(0, shutdown.signal);
  let handler: Handle | undefined;
  let handlerLoading: Promise<Handle> | undefined;
  const loadHandler = () =>
    (handlerLoading ??= import('./request-handler.js').then(({ createRequestHandler }) => {
      handler = createRequestHandler(
        ctx,
        options,
        () => (loaded ? undefined : prepare()),
        shutdown.signal,
      );
      return handler;
    }));
  const handle: Handle = (request) =>
    handler ? handler(request) : loadHandler().then((loadedHandler) => loadedHandler(request));

  return {
    handle,
    ready,
    warm: async () => {
      await Promise.all([loadHandler(), prepare()]);
    },
    closing: () => shutdown.abort(),
    close: async () => {
      if (upstream !== undefined && loading) await loading.catch(() => undefined);
      await ctx.proxy?.close();
      stateJournal?.close();
    },
    ctx,
  };
}
