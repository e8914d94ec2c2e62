/** OAuth parameters of one request, from the query and a form body together. */
export interface OAuthParams {
  values: Map<string, string>;
  /** The first parameter name seen twice (RFC 6749 §3.1: an invalid_request). */
  repeated: string | undefined;
}

/**
 * Reads parameters from the query string (SERVICE.md §4) and, for standard OAuth clients, from an
 * `application/x-www-form-urlencoded` body (SPEC §5). Empty values count as omitted (RFC 6749 §3.1).
 */
export function parseOAuthParams(query: string, body: string, contentType: string): OAuthParams {
  const values = new Map<string, string>();
  let repeated: string | undefined;
  const add = (source: string) => {
    if (source === '') return;
    for (const [name, value] of new URLSearchParams(source)) {
      if (value === '') continue;
      if (values.has(name)) repeated ??= name;
      else values.set(name, value);
    }
  };
  add(query);
  if (body !== '' && isFormType(contentType)) add(body);
  return { values, repeated };
}

/** Whether a Content-Type names a form body. */
export function isFormType(contentType: string): boolean {
  return contentType.toLowerCase().includes('application/x-www-form-urlencoded');
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded id and secret inside base64. */
export function parseBasicAuth(
  header: string | undefined,
): { id: string; secret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^basic[ ]+([A-Za-z0-9+/=_-]*)\s*$/i.exec(header.trim());
  if (!match) return /^basic\b/i.test(header.trim()) ? 'malformed' : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
