// What one outgoing request must never have shown back (SPEC §3: secrets never printed, never
// logged): a service may echo what it was sent — a client secret, a code, a verifier or a token in
// an `error_description`, a bearer token in `WWW-Authenticate`, any of them in an HTML error page —
// and names alone cannot find those. Pure.
import { SecretValues } from '../util/secret-values.js';
import type { HttpRequest, HttpResponse } from './types.js';

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** The secret values a request carries: its query's and body's secret parameters, its credentials. */
export function requestSecrets(request: HttpRequest): SecretValues {
  const secrets = new SecretValues();
  const q = request.url.indexOf('?');
  if (q !== -1) secrets.addParams(request.url.slice(q + 1));
  const body = request.body;
  if (body) {
    if ((header(request.headers, 'content-type') ?? '').includes('x-www-form-urlencoded')) {
      secrets.addParams(body);
    } else secrets.addJson(body);
  }
  secrets.addAuthorization(header(request.headers, 'authorization'));
  return secrets;
}

/** An answer with every value of `secrets` masked in its headers and body. */
export function maskedResponse(response: HttpResponse, secrets: SecretValues): HttpResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers))
    headers[name] = secrets.maskText(value);
  return { status: response.status, headers, text: secrets.maskText(response.text) };
}
