import { UsageError } from '../../errors.js';
import type { MockOptions } from '../core/types.js';

const USER_NAME = /^[A-Za-z0-9._~-]+$/;

/**
 * Checks the proxy options together before anything starts: `record` and `validate` need
 * `proxy`, `validate` needs `fixtures` (the contract), `scrub` and `recordUser` need `record`.
 * Returns the upstream base URL, or undefined when the mock serves its fixtures.
 */
export function checkProxyOptions(options: MockOptions): string | undefined {
  const usage = (message: string) => new UsageError(message, { code: 'bad_option' });
  if (options.proxy === undefined) {
    if (options.record !== undefined) throw usage('--record needs --proxy <upstream URL>');
    if (options.validate) throw usage('--validate needs --proxy <upstream URL>');
  }
  if (options.validate && options.fixtures === undefined) {
    throw usage('--validate needs --fixtures DIR: the documents to check the calls against');
  }
  if (options.record === undefined) {
    if (options.scrub !== undefined) throw usage('--scrub needs --record DIR');
    if (options.recordUser !== undefined) throw usage('--record-user needs --record DIR');
  }
  if (options.recordUser !== undefined && !USER_NAME.test(options.recordUser)) {
    throw usage(`--record-user must match ${USER_NAME}, got ${JSON.stringify(options.recordUser)}`);
  }
  if (options.proxy === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(options.proxy);
  } catch {
    throw usage(`--proxy must be an http(s) URL, got ${JSON.stringify(options.proxy)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usage(`--proxy must be an http(s) URL, got ${url.protocol}`);
  }
  // The mock forwards its clients' own credentials; one of its own would only be shown, in every
  // 502 answer and log line that names the upstream.
  if (url.username !== '' || url.password !== '') {
    throw usage('--proxy must not carry a user name or password: the mock sends none of its own');
  }
  if (url.search !== '' || url.hash !== '') {
    throw usage('--proxy is a base URL: no query, no fragment');
  }
  return url.href.replace(/\/+$/, '');
}
