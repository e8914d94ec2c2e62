import { redactBody, redactHeader, redactUrl } from '../util/redact.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** `--verbose` lines for one request (SPEC §3): method, redacted URL, headers and body. */
export function traceRequest(request: HttpRequest): string[] {
  const lines = [`> ${request.method} ${redactUrl(request.url)}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`> ${name}: ${redactHeader(name, value)}`);
  if (request.body !== undefined && request.body !== '') {
    lines.push(`> ${redactBody(request.body, request.headers['content-type'] ?? '')}`);
  }
  return lines;
}

/** `--verbose` lines for one answer: status, duration, redacted headers and body. */
export function traceResponse(response: HttpResponse, durationMs: number): string[] {
  const lines = [`< ${response.status} (${Math.round(durationMs)} ms)`];
  for (const [name, value] of Object.entries(response.headers))
    lines.push(`< ${name}: ${redactHeader(name, value)}`);
  if (response.text !== '')
    lines.push(`< ${redactBody(response.text, response.headers['content-type'] ?? '')}`);
  return lines;
}
