import type { NetworkFailure } from '../../http/network-error.js';
import type { HintRule } from './facts.js';

const PROXY_HINT = 'check HTTP_PROXY / HTTPS_PROXY, or list the host in NO_PROXY';

/** The flag of the endpoint each OAuth request goes to (src/oauth/token-response.ts names them). */
const ENDPOINT_FLAGS: Record<string, string> = {
  'token request': '--token-url',
  'refresh request': '--refresh-url',
  'revoke request': '--revoke-url',
};

/**
 * An OAuth request answered 404, as JSON or as a page: nothing is there, so the URL is what to
 * check, as for the API.
 */
export const endpointHint: HintRule = (_code, facts) => {
  const flag = typeof facts.request === 'string' ? ENDPOINT_FLAGS[facts.request] : undefined;
  return flag !== undefined && facts.status === 404
    ? `is the base URL or ${flag} right?`
    : undefined;
};

/**
 * The network (src/http/network-error.ts): a failure at the proxy is the proxy variables' to fix;
 * one at the service names what to check, and DASVC_HTTP_TIMEOUT where more time may do.
 */
export const networkHint: HintRule = (code, facts) => {
  const failure = facts as Partial<NetworkFailure>;
  const atProxy = typeof failure.proxy === 'string';
  // A bad proxy variable is found before any request; the network's failures all say whether a
  // proxy applied. An error code a server sent (an OAuth `error`) carries neither.
  if (code === 'bad_proxy') {
    return typeof facts.variable === 'string'
      ? "set it to the proxy's URL (http://host:port), or unset it"
      : undefined;
  }
  if (typeof failure.proxied !== 'boolean') return undefined;
  switch (code) {
    case 'response_too_large':
      return failure.proxied === true
        ? "an OAuth or JSON-RPC answer is far smaller: check that the URL is the service, and that the proxy passes the service's answers on"
        : 'an OAuth or JSON-RPC answer is far smaller: check that the URL is the service';
    case 'timeout':
      if (failure.waited === 'answer')
        return 'try again; DASVC_HTTP_TIMEOUT=<seconds> allows more time';
      if (failure.waited !== 'connection') return undefined;
      return atProxy
        ? PROXY_HINT
        : 'check the address and your network; DASVC_HTTP_TIMEOUT=<seconds> allows more time';
    case 'connection_refused':
      return atProxy ? PROXY_HINT : 'check the address, and that the service is running';
    case 'proxy_refused':
      return failure.proxyAuth === true
        ? "the proxy wants credentials: give them in the proxy variable's URL (http://user:password@host:port), or check those it has"
        : PROXY_HINT;
    case 'connection_reset':
      return 'try again; if it keeps happening, a proxy or the service drops the request';
    case 'dns':
      return atProxy
        ? PROXY_HINT
        : 'check the host name in the base URL, and your network or DNS settings';
    case 'unreachable':
      return atProxy ? PROXY_HINT : 'check your network connection (and VPN or proxy settings)';
    case 'tls':
      return failure.untrustedIssuer === true
        ? 'NODE_EXTRA_CA_CERTS=<ca.pem> adds the CA that signed it'
        : undefined;
    default:
      return undefined;
  }
};
