// An answer's headers and body as both transports hand them over: node:http and undici give
// header lists as arrays and the body as bytes; dasvc reads them as fetch would.

/** Header lists joined with ", " (as fetch's Headers does). */
export function flatHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** A body as fetch's text() reads it: UTF-8, without a leading byte-order mark. */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
