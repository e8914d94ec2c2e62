import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import { bodyText, flatHeaders } from './answer-text.js';
import { UsageError } from '../errors.js';
import { readBounded } from '../util/bounded-bytes.js';
import type { Env } from '../util/env.js';
import { ResponseTooLargeError } from './response-limit.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** The proxy variables of `env`, as undici's EnvHttpProxyAgent takes them. */
export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/**
 * The proxy variables set in `env` (SPEC §1: HTTP(S)_PROXY, NO_PROXY), each read as undici reads
 * it from process.env (lower case first); undefined when no proxy is set at all. Which request
 * goes through which proxy, and which goes direct (NO_PROXY), is undici's to decide: these are
 * handed to its EnvHttpProxyAgent as they are.
 */
export function proxySettings(env: Env): ProxySettings | undefined {
  const httpProxy = proxyVariable(env, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = proxyVariable(env, 'https_proxy', 'HTTPS_PROXY');
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** The schemes of the proxy URLs that undici's ProxyAgent takes. */
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks:', 'socks5:']);

/** A proxy variable's value ('' when unset); one that is no URL is a usage error naming it. */
function proxyVariable(env: Env, lower: string, upper: string): string {
  const name = env[lower] === undefined ? upper : lower;
  const value = env[name] ?? '';
  // The value is not shown: a mistyped proxy URL may still carry a password.
  if (value && !PROXY_SCHEMES.has(URL.parse(value)?.protocol ?? ''))
    throw new UsageError(`${name} is not a URL`, {
      code: 'bad_proxy',
      facts: { variable: name },
    });
  return value;
}

/**
 * The proxies that requests may go through under `settings`: what a failure may be blamed on,
 * first the one a request to `url` uses (undici's choice: HTTPS_PROXY for https, else HTTP_PROXY).
 */
export function proxyUrls(settings: ProxySettings | undefined, url = ''): string[] {
  if (!settings) return [];
  const { httpProxy, httpsProxy } = settings;
  const first = url.startsWith('https:') ? httpsProxy || httpProxy : httpProxy;
  return [...new Set([first, httpProxy, httpsProxy])].filter(Boolean);
}

/**
 * undici's EnvHttpProxyAgent with these settings, not process.env's: the one place that makes one
 * (the CLI and the library, `dasvc mock --proxy`).
 */
export async function createEnvProxyAgent(
  settings: ProxySettings,
  options: Agent.Options = {},
): Promise<EnvHttpProxyAgent> {
  const undici = await import('undici');
  return new undici.EnvHttpProxyAgent({ ...options, ...settings });
}

/** Sends through undici's EnvHttpProxyAgent (loaded only when a proxy variable is set). */
export async function sendThroughProxy(
  request: HttpRequest,
  settings: ProxySettings,
  signal: AbortSignal,
  /** Past this many bytes of body the exchange ends with ResponseTooLargeError. */
  limit: number,
): Promise<HttpResponse> {
  const undici = await import('undici');
  const key = `${settings.httpProxy}\n${settings.httpsProxy}\n${settings.noProxy}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = await createEnvProxyAgent(settings);
    agents.set(key, agent);
  }
  try {
    // undici's request, not its fetch: the same exchange as the direct path's (no redirect
    // followed, no compression asked for), and no port refused for being on fetch's list of
    // bad ports (an installation on 6000 or 10080 is reached through a proxy as directly).
    const sending = undici.request(request.url, {
      method: request.method as Dispatcher.HttpMethod,
      headers: { accept: '*/*', ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
      dispatcher: agent,
    });
    // undici's request does not give up a tunnel its proxy never answers when the signal
    // aborts: the exchange ends with the signal, and the request left behind settles unheard.
    sending.catch(() => undefined);
    const res = await Promise.race([sending, abortOf(signal)]);
    const headers = flatHeaders(res.headers);
    // Counted as it streams (a declared length past the limit ends it before any byte); leaving
    // the body early ends it, and the request with it.
    const tooLarge = () => new ResponseTooLargeError(limit);
    if (Number(headers['content-length']) > limit) {
      // Destroyed unread, undici's body emits its abort as an 'error': heard here, or it would be
      // the process's uncaught exception.
      res.body.on('error', () => undefined).destroy();
      throw tooLarge();
    }
    const text = bodyText(await readBounded(res.body, limit, tooLarge));
    return { status: res.statusCode, headers, text };
  } catch (error) {
    // An aborted exchange (the timeout, Ctrl-C) leaves its connection to a silent proxy open,
    // which would keep the process alive after it reported the failure: the agent goes with it.
    if (signal.aborted && agents.get(key) === agent) {
      agents.delete(key);
      void agent.destroy().catch(() => undefined);
    }
    throw error;
  }
}

/** One agent per proxy configuration, so that connections to the proxy are reused. */
const agents = new Map<string, EnvHttpProxyAgent>();

/** A promise that rejects with the signal's reason once it aborts. */
function abortOf(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
