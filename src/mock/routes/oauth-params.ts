/** OAuth parameters of one request, from the query and a form body together. */
export interface OAuthParams {
  values: Map<string, string>;
  /** The name of each parameter met again, in order (RFC 6749 §3.1: an invalid_request). */
  repeated: string[];
  /** The name of each parameter that is not valid UTF-8 percent-encoding, in order. */
  malformed: string[];
  /** Whether a form body carried parameters (the RFC 6749 way, not SERVICE.md's query string). */
  fromBody: boolean;
  /** `state` as it was written in the query string, still percent-encoded (SPEC §5: echoed byte for byte). */
  rawState?: string;
}

/**
 * The first of `names` that an endpoint reads: RFC 6749 §3.1 has a server ignore the parameters it
 * does not recognize, however repeated or broken they are.
 */
export function firstRead(
  names: readonly string[],
  reads: ReadonlySet<string>,
): string | undefined {
  return names.find((name) => reads.has(name));
}

/** A lone `%` stays literal, as in URLSearchParams. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;
const NON_ASCII = /[\u0080-\uFFFF]/;

/** Whether a component's percent-encoding is valid UTF-8. */
function isUtf8Encoded(raw: string): boolean {
  try {
    decodeURIComponent(raw.replace(LONE_PERCENT, '%25'));
    return true;
  } catch {
    return false;
  }
}

/**
 * One component of a form-encoded pair, decoded as URLSearchParams decodes it, or undefined when
 * its percent-encoding is not valid UTF-8 (where URLSearchParams would put U+FFFD instead).
 */
export function decodeComponent(raw: string): string | undefined {
  const spaced = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced.replace(LONE_PERCENT, '%25'));
  } catch {
    return undefined;
  }
}

/**
 * Reads parameters from the query string (SERVICE.md §4) and, for standard OAuth clients, from an
 * `application/x-www-form-urlencoded` body (SPEC §5). Empty values count as omitted (RFC 6749 §3.1).
 * One pass per source: each pair is split and decoded once, and checked on the way.
 */
export function parseOAuthParams(query: string, body: string, contentType: string): OAuthParams {
  const values = new Map<string, string>();
  const repeated: string[] = [];
  const malformed: string[] = [];
  let fromBody = false;
  let rawState: string | undefined;
  const add = (source: string, isQuery: boolean) => {
    if (source === '') return 0;
    let count = 0;
    for (const pair of source.split('&')) {
      if (pair === '') continue;
      count += 1;
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
      // Percent-escapes beside raw non-ASCII text: URLSearchParams has its own reading of that
      // mix, which this keeps exactly (a rare path; HTTP request targets are ASCII).
      const mixed = pair.includes('%') && NON_ASCII.test(pair);
      let name = mixed ? undefined : decodeComponent(rawName);
      let value = mixed ? undefined : decodeComponent(rawValue);
      if (mixed) {
        if (!isUtf8Encoded(pair)) {
          malformed.push(
            isUtf8Encoded(rawName)
              ? (new URLSearchParams(`${rawName}=`).keys().next().value ?? rawName)
              : rawName,
          );
        }
        [name, value] = new URLSearchParams(pair).entries().next().value as [string, string];
      } else if (name === undefined || value === undefined) {
        // Named by its decoded name when only the value is broken, else by its raw name.
        malformed.push(name ?? rawName);
        [name, value] = new URLSearchParams(pair).entries().next().value as [string, string];
      }
      if (value === '') continue;
      if (values.has(name)) repeated.push(name);
      else {
        values.set(name, value);
        if (isQuery && name === 'state') rawState = rawValue;
      }
    }
    return count;
  };
  add(query, true);
  if (body !== '' && isFormType(contentType)) fromBody = add(body, false) > 0;
  return { values, repeated, malformed, fromBody, ...(rawState === undefined ? {} : { rawState }) };
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
