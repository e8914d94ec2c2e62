import { AuthError, DasvcError, sameKind } from '../errors.js';
import { createHttpClient } from '../http/http-client.js';
import type { SendFn } from '../http/types.js';
import { Client } from '../client/client.js';
import { memoryTokenStore } from '../store/token-store.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../oauth/login-flow.js';
import type { MockServer } from '../mock/index.js';
import type { Writer } from '../cli/output.js';
import type { Styles } from '../util/styles.js';
import { lifetime, renderStep, summarise, type DemoStep, type Exchange } from './narration.js';
import type { Env } from '../util/env.js';

export interface DemoOptions {
  /** Open the real consent page in a browser instead of auto-approving as alice. */
  browser: boolean;
  json: boolean;
  /** `--verbose`: the HTTP trace on stderr (redacted), besides the narration. */
  verbose?: boolean;
}

export interface DemoDeps {
  stdout: Writer;
  stderr: Writer;
  style: Styles;
  openBrowser: (url: string) => Promise<void>;
  startMock: (options: { port: number; autoApprove?: string }) => Promise<MockServer>;
  now: () => number;
  /** The HTTP variables (DASVC_HTTP_TIMEOUT, proxies) of the run; the settings ones are not read. */
  env?: Env;
  /** How long `--browser` waits for Approve on the consent page (default: login's 5 minutes). */
  browserTimeoutMs?: number;
}

const CLIENT = { clientId: 'demo-client', clientSecret: 'demo-secret' };
const SCOPE = 'crm';

/**
 * The run's HTTP variables with the embedded mock's loopback address exempt from any proxy: a
 * proxy cannot reach this machine's 127.0.0.1, and a shell with HTTP_PROXY set but no NO_PROXY
 * for it (common behind a company proxy) would fail `npm start` with a network error. The proxy
 * variables are still read, so a malformed one stays a usage error.
 */
function loopbackDirect(env: Env): Env {
  const listed = env.no_proxy ?? env.NO_PROXY;
  if (listed === '*') return env;
  const noProxy = [listed, '127.0.0.1', 'localhost'].filter(Boolean).join(',');
  return { ...env, no_proxy: noProxy, NO_PROXY: noProxy };
}

/**
 * `dasvc demo` (SPEC §3): the whole job against an embedded mock, narrated step by step with what
 * went over the wire (secrets masked). Nothing touches the config dir; the mock is always stopped.
 */
export async function runDemo(options: DemoOptions, deps: DemoDeps): Promise<DemoStep[]> {
  const started = deps.now();
  const { style } = deps;
  // Before the mock starts: a bad DASVC_HTTP_TIMEOUT or proxy variable is a usage error (exit 2)
  // with nothing left listening.
  const http = createHttpClient({
    ...(deps.env ? { env: loopbackDirect(deps.env) } : {}),
    ...(options.verbose
      ? { trace: (line: string) => void deps.stderr.write(`${style.dim(line)}\n`) }
      : {}),
  });
  const mock = await deps.startMock({
    port: 0,
    ...(options.browser ? {} : { autoApprove: 'alice' }),
  });
  const steps: DemoStep[] = [];
  const show = (step: DemoStep) => {
    steps.push(step);
    if (options.json) return;
    const [title, ...rest] = renderStep(step, steps.length, mock.url);
    deps.stdout.write(`\n${style.bold(title!)}\n`);
    for (const line of rest) {
      deps.stdout.write(`${/^\s+[→←]|^\s{5}\S/.test(line) ? style.dim(line) : line}\n`);
    }
  };
  if (!options.json) {
    deps.stdout.write(
      `${style.bold('dasvc demo')}: the Delegated Access Service flow, end to end, on an embedded mock\n`,
    );
  }

  let wire: Exchange[] = [];
  const send: SendFn = async (request) => {
    const response = await http(request);
    wire.push(summarise(request, response));
    return response;
  };
  const drain = () => {
    const taken = wire;
    wire = [];
    return taken;
  };
  // Hermetic: no variable of the user's shell and no profile (not even for settings, as a
  // `store: 'memory'` client of the library would read them); the tokens live in the client alone.
  const settings = { baseUrl: mock.url, ...CLIENT, scope: SCOPE };
  const hermetic = (extra: object, tell?: (message: string) => void) =>
    new Client(
      { ...settings, ...extra },
      {
        env: {},
        send,
        now: Date.now,
        profiles: undefined,
        tokens: memoryTokenStore(),
        ...(tell ? { tell } : {}),
      },
    );
  const client = hermetic({}, (message) => {
    if (options.browser && !options.json) deps.stderr.write(`${message}\n`);
  });
  /** A client that presents one given access token, as any holder of it could. */
  const holding = (token: string) => hermetic({ token });

  try {
    show({
      title: 'Start the mock service',
      exchanges: [],
      meaning:
        `listening on ${mock.url}, with client ${CLIENT.clientId} and users alice (crm, wiki) and bob (crm).\n` +
        (options.browser
          ? 'The consent page will open in your browser: pick a user and click Approve.'
          : 'alice approves automatically (dasvc mock --auto-approve alice); --browser shows the real consent page.'),
    });

    const { tokens, redirectUri } = await client
      .login({
        // Without --browser the mock approves as alice at once: the login's own authorization
        // request comes back as the redirect, and no browser is needed.
        openBrowser: options.browser ? deps.openBrowser : false,
        timeoutMs: options.browser ? (deps.browserTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS) : 15_000,
      })
      .catch((error: unknown) => {
        // Login's own hint names `dasvc login --timeout`, which is not the demo's to take: the
        // error says it was the demo's login, and whether a person was to approve in a browser.
        if (!(error instanceof DasvcError) || error.code !== 'login_timeout') throw error;
        throw sameKind(error, error.message, {
          facts: { during: 'demo', browser: options.browser },
        });
      });
    // dasvc's own authorization request (a GET) and the token request (a POST).
    const loginWire = drain();
    const tokenWire = loginWire.filter((x) => x.method !== 'GET');
    show({
      title: `Authorization request: ${options.browser ? 'the user approves in the browser' : 'alice approves at once'}`,
      // With --browser the browser's requests are the person's: the embedded mock's journal has
      // them, dasvc's own first one included.
      exchanges: options.browser
        ? await consentExchanges(mock.url)
        : loginWire.filter((x) => x.method === 'GET'),
      meaning: options.browser
        ? `dasvc listened on ${redirectUri} (127.0.0.1 only) and sent the authorization\n` +
          'request once itself, to see that the service takes it (its answer: the consent page), then\n' +
          'sent the browser there, with a fresh 256-bit state and a PKCE S256 challenge. The service\n' +
          'redirected back with a one-time code; dasvc checked that the state is the one it sent.'
        : `dasvc listened on ${redirectUri} (127.0.0.1 only) and sent the authorization\n` +
          'request once itself, with a fresh 256-bit state and a PKCE S256 challenge. The mock approves\n' +
          'as alice without a consent page (--auto-approve), so its answer is already the redirect back\n' +
          'with a one-time code and no browser is needed; dasvc checked that the state is the one it sent.\n' +
          "A real installation shows its consent page here (dasvc demo --browser shows the mock's).",
    });
    show({
      title: 'Token request: the code is exchanged',
      exchanges: tokenWire,
      meaning:
        `An access token ${lifetime(tokens.expiresAt, deps.now())} and a refresh token. ` +
        '`dasvc login` stores them in the profile\n(config file mode 0600); this demo keeps them in memory.',
    });

    const contacts = await client.rpc<{ name: string }[]>(SCOPE, 'contacts.list');
    show({
      title: `API request: contacts.list on ${SCOPE}`,
      exchanges: drain(),
      meaning: `The user sees their own ${contacts.length} contacts: ${contacts.map((c) => c.name).join(', ')}.`,
    });

    const renewed = await client.refresh();
    const oldRefused = await refusedWith(() =>
      holding(tokens.accessToken).rpc(SCOPE, 'contacts.list'),
    );
    show({
      title: 'Refresh token request: a new pair before the old one expires',
      exchanges: drain(),
      meaning:
        `New access token ${lifetime(renewed.expiresAt, deps.now())}, new refresh token. The old pair ` +
        `stopped working at once:\nthe old access token is now ${oldRefused}.`,
    });

    const { revoked } = await client.revoke({ hint: 'refresh_token' });
    const answer = revoked.refresh_token?.body;
    const revokedRefused = await refusedWith(() =>
      holding(renewed.accessToken).rpc(SCOPE, 'contacts.list'),
    );
    show({
      title: 'Revoke token request: the session ends early',
      exchanges: drain(),
      meaning:
        `The service answered ${JSON.stringify(answer)}. Revoking the refresh token also ended its\n` +
        `access token, which is now ${revokedRefused}.`,
    });
  } finally {
    await mock.close();
  }

  const seconds = ((deps.now() - started) / 1000).toFixed(1);
  if (options.json) {
    deps.stdout.write(
      `${JSON.stringify({ baseUrl: mock.url, steps, seconds: Number(seconds) })}\n`,
    );
  } else {
    deps.stdout.write(
      `\n${style.green('✓')} Done in ${seconds} s. The mock is stopped; nothing was written to disk.\n` +
        `  Next: run \`dasvc mock\` in one terminal, then \`dasvc login\` with the base URL and demo client it prints.\n`,
    );
  }
  return steps;
}

/**
 * The authorization requests a real browser made (the consent page, the Approve/Deny post), as the
 * mock's journal recorded them: path, query with its secrets masked (SPEC §8), status.
 */
async function consentExchanges(mockUrl: string): Promise<Exchange[]> {
  try {
    const journal = (await (await fetch(`${mockUrl}/_mock/journal`)).json()) as {
      entries: { method: string; path: string; query: string; status: number }[];
    };
    return journal.entries
      .filter((e) => e.path === '/webservice/authorize/')
      .map((e) => ({
        method: e.method,
        url: `${mockUrl}${e.path}${e.query ? `?${e.query}` : ''}`,
        status: e.status,
      }));
  } catch {
    return [];
  }
}

/** Runs a call that must be refused, and says how it was refused. */
async function refusedWith(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (error) {
    if (error instanceof AuthError) return `refused (HTTP ${error.status ?? '?'})`;
    throw error;
  }
  throw new Error('the service accepted a token that should no longer work');
}
