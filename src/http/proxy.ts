import type { Agent, EnvHttpProxyAgent } from 'undici';
import { readBounded } from '../util/bounded-bytes.js';
import { ResponseTooLargeError } from './response-limit.js';
import type { HttpRequest, HttpResponse } from './types.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy URL that undici's `EnvHttpProxyAgent` would use for `url` under `env` (SPEC §1:
 * HTTP(S)_PROXY, NO_PROXY), or undefined for a direct connection. Same precedence and NO_PROXY
 * matching as undici 7, so that the choice of transport never changes where a request goes.
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const proxies = proxyVariables(env);
  const proxy = url.protocol === 'https:' ? proxies.https : proxies.http;
  if (!proxy) return undefined;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return bypassed(proxies.noProxy, hostname, port) ? undefined : proxy;
}

/** The proxy settings as undici reads them (lower case first), taken from `env`. */
function proxyVariables(env: NodeJS.ProcessEnv) {
  const http = env.http_proxy ?? env.HTTP_PROXY ?? '';
  return {
    http,
    // An empty HTTPS_PROXY falls back to the HTTP proxy, as in undici.
    https: (env.https_proxy ?? env.HTTPS_PROXY) || http,
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
}

function bypassed(noProxy: string, hostname: string, port: number): boolean {
  if (noProxy === '*') return true;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

/**
 * undici's EnvHttpProxyAgent reading the proxy variables from `env` (SPEC §1), not from
 * process.env: the one place that turns them into an agent (the CLI, `dasvc mock --proxy`).
 */
export async function createEnvProxyAgent(
  env: NodeJS.ProcessEnv,
  options: Agent.Options = {},
): Promise<EnvHttpProxyAgent> {
  const undici = await import('undici');
  const { http, https, noProxy } = proxyVariables(env);
  return new undici.EnvHttpProxyAgent({ ...options, httpProxy: http, httpsProxy: https, noProxy });
}

/** Sends through undici's EnvHttpProxyAgent, configured from `env` (loaded only when a proxy applies). */
export async function sendThroughProxy(
  request: HttpRequest,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  /** Past this many bytes of body the exchange ends with ResponseTooLargeError. */
  limit: number,
): Promise<HttpResponse> {
  const undici = await import('undici');
  const { http, https, noProxy } = proxyVariables(env);
  const key = `${http}\n${https}\n${noProxy}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = await createEnvProxyAgent(env);
    agents.set(key, agent);
  }
  try {
    const res = await undici.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal,
      dispatcher: agent,
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Counted as it streams (a declared length past the limit ends it before any byte); leaving
    // the body early cancels it, and the request with it.
    const tooLarge = () => new ResponseTooLargeError(limit);
    if (Number(headers['content-length']) > limit) {
      await res.body?.cancel();
      throw tooLarge();
    }
    const body = res.body ? await readBounded(res.body, limit, tooLarge) : Buffer.alloc(0);
    const text = body.toString('utf8');
    // fetch's text() drops a byte-order mark; so does this.
    return {
      status: res.status,
      headers,
      text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
    };
  } catch (error) {
    // An aborted exchange (the timeout, Ctrl-C) leaves its connection to a silent proxy open,
    // which kept the process alive after it had reported the failure: the agent goes with it.
    if (signal.aborted && agents.get(key) === agent) {
      agents.delete(key);
      void agent.destroy().catch(() => undefined);
    }
    throw error;
  }
}

/** One agent per proxy configuration, so that connections to the proxy are reused. */
const agents = new Map<string, EnvHttpProxyAgent>();
