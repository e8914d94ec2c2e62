import type { HttpRequest, HttpResponse } from '../http/types.js';
import { formatDuration } from '../util/duration.js';
import { redactBody, redactUrl } from '../util/redact.js';

/** One request/answer pair as the demo shows it: secrets already masked. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** The interesting request detail: a redacted body or the bearer header. */
  sent?: string;
  /** The interesting answer detail: a redacted body or a Location header. */
  received?: string;
}

/** A numbered step of the demo: what SERVICE.md calls it, what went over the wire, what it means. */
export interface DemoStep {
  title: string;
  exchanges: Exchange[];
  meaning: string;
}

const MAX_SHOWN = 200;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** Summarises an exchange made through the CLI's HTTP client, masking every secret. */
export function summarise(request: HttpRequest, response: HttpResponse): Exchange {
  const contentType = request.headers['content-type'] ?? '';
  const parts = [
    request.headers.authorization ? 'Authorization: Bearer [redacted]' : '',
    request.body ? redactBody(request.body, contentType) : '',
  ].filter(Boolean);
  const sent = parts.length > 0 ? parts.join('  ') : undefined;
  const location = response.headers.location;
  const received = location
    ? `Location: ${redactUrl(location)}`
    : response.text
      ? redactBody(response.text, response.headers['content-type'] ?? '')
      : undefined;
  return {
    method: request.method,
    url: redactUrl(request.url),
    status: response.status,
    ...(sent === undefined ? {} : { sent }),
    ...(received === undefined ? {} : { received }),
  };
}

/** Renders one step as text lines (paths shown relative to the mock's base URL). */
export function renderStep(step: DemoStep, index: number, baseUrl: string): string[] {
  const relative = (url: string) => (url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url);
  const lines = [`${index}. ${step.title}`];
  for (const x of step.exchanges) {
    const [path, query] = splitQuery(relative(x.url));
    lines.push(`   → ${x.method} ${path}`);
    if (query) lines.push(`     ${clip(query)}`);
    if (x.sent) lines.push(`     ${clip(x.sent)}`);
    lines.push(`   ← ${x.status}${x.received ? ` ${clip(x.received)}` : ''}`);
  }
  for (const line of step.meaning.split('\n')) lines.push(`   ${line}`);
  return lines;
}

/** A URL's path and its query shown decoded, one `name=value` after another, for reading. */
function splitQuery(url: string): [string, string] {
  const q = url.indexOf('?');
  if (q === -1) return [url, ''];
  const params = [...new URLSearchParams(url.slice(q + 1))].map(([k, v]) => `${k}=${v}`);
  return [url.slice(0, q), params.join(' ')];
}

/** "valid for 1h" or "of unknown lifetime", from an absolute expiry (ms) and now (ms). */
export function lifetime(expiresAt: number | null, now: number): string {
  return expiresAt === null
    ? 'of unknown lifetime'
    : `valid for ${formatDuration((expiresAt - now) / 1000)}`;
}
