/** OAuth parameters of one request, from the query and a form body together. */
export interface OAuthParams {
  values: Map<string, string>;
  /** The first parameter name seen twice (RFC 6749 §3.1: an invalid_request). */
  repeated: string | undefined;
  /** The first parameter whose name or value is not valid UTF-8 percent-encoding. */
  malformed: string | undefined;
  /** Whether a form body carried parameters (the RFC 6749 way, not SERVICE.md's query string). */
  fromBody: boolean;
}

/** Whether a query component decodes to valid UTF-8 (a lone `%` stays literal, as in URLSearchParams). */
function isUtf8Encoded(component: string): boolean {
  if (!component.includes('%')) return true;
  try {
    decodeURIComponent(component.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    return true;
  } catch {
    return false;
  }
}

/** The name of the first name=value pair of `source` that is not valid UTF-8 percent-encoding. */
function firstMalformed(source: string): string | undefined {
  if (!source.includes('%')) return undefined;
  for (const pair of source.split('&')) {
    if (isUtf8Encoded(pair)) continue;
    const name = pair.split('=', 1)[0]!;
    return isUtf8Encoded(name)
      ? (new URLSearchParams(`${name}=`).keys().next().value ?? name)
      : name;
  }
  return undefined;
}

/**
 * Reads parameters from the query string (SERVICE.md §4) and, for standard OAuth clients, from an
 * `application/x-www-form-urlencoded` body (SPEC §5). Empty values count as omitted (RFC 6749 §3.1).
 */
export function parseOAuthParams(query: string, body: string, contentType: string): OAuthParams {
  const values = new Map<string, string>();
  let repeated: string | undefined;
  let malformed: string | undefined;
  let fromBody = false;
  const add = (source: string) => {
    if (source === '') return 0;
    malformed ??= firstMalformed(source);
    let count = 0;
    for (const [name, value] of new URLSearchParams(source)) {
      count += 1;
      if (value === '') continue;
      if (values.has(name)) repeated ??= name;
      else values.set(name, value);
    }
    return count;
  };
  add(query);
  if (body !== '' && isFormType(contentType)) fromBody = add(body) > 0;
  return { values, repeated, malformed, fromBody };
}

/** Whether a Content-Type names a form body. */
function isFormType(contentType: string): boolean {
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
