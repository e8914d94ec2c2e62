import { parseExact, restoreExact } from './exact-numbers.js';

/** OAuth parameter names (SERVICE.md 4, RFC 6749, RFC 7636) whose values are secrets. */
export const SECRET_NAMES = new Set([
  'client_secret',
  'code',
  'code_verifier',
  // A plain PKCE challenge is the verifier itself (an S256 one tells nothing, masked alike).
  'code_challenge',
  'access_token',
  'refresh_token',
  'token',
  'id_token',
  'password',
  'secret',
  'state',
]);

export const REDACTED = '[redacted]';

/**
 * Words that make a name a secret's wherever they appear in it, in any case and whatever joins
 * them (`user_password`, `apiToken`, `X-Client-Secret`, `PASSWD`).
 */
const SECRET_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'credential',
  'apikey',
  'privatekey',
  'verifier',
];

/** Names that hold a secret word but describe a token, never carry one (RFC 6749 5.1, RFC 7009). */
const DESCRIPTIVE = new Set(['tokentype', 'tokentypehint']);

/** A name with case and separators gone: `Client-Secret`, `client_secret`, `clientSecret` alike. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a member of JSON data (params, results, error data) holds a secret by its name: one of
 * the secret words in it, in any case. Not `code` or `state` alone: in data those are ordinary
 * words (a country code, an order state), whose secret values are caught by value.
 */
export function isSecretMember(name: string): boolean {
  // Data repeats its member names: each is judged once (a bounded memo).
  let secret = judged.get(name);
  if (secret === undefined) {
    const plain = folded(name);
    secret = !DESCRIPTIVE.has(plain) && SECRET_WORDS.some((word) => plain.includes(word));
    if (judged.size >= JUDGED_LIMIT) judged.clear();
    judged.set(name, secret);
  }
  return secret;
}

const judged = new Map<string, boolean>();
const JUDGED_LIMIT = 10_000;

/** What a name ends with when its member is a secret itself (`user_password`, `apiToken`). */
const SECRET_ENDINGS = [...SECRET_WORDS, 'passwords', 'secrets', 'credentials', 'secretkey'];

/**
 * Whether a member named like a secret holds the secret itself, so that its value is one to look
 * for elsewhere: its name ends with the secret word (`user_password`, `clientSecret`), where
 * `token_expires_in` or `password_min_length` hold something about a secret (masked in place by
 * isSecretMember, but a 3600 or an 8 is no value to hide wherever it recurs).
 */
export function isSecretHolder(name: string): boolean {
  if (!isSecretMember(name)) return false;
  const plain = folded(name);
  return SECRET_ENDINGS.some((word) => plain.endsWith(word));
}

/**
 * Whether a parameter or member holds a secret, however it is spelt: the OAuth names (`Token`,
 * `CLIENT_SECRET` and a stray `?code` from `??code=` are not the service's names, but their values
 * are still secrets), and every name a data member is a secret by.
 */
export function isSecretName(name: string): boolean {
  return isOAuthSecret(name) || isSecretMember(name);
}

/** Whether a name is one of the OAuth parameters that carry secrets, in any case. */
export function isOAuthSecret(name: string): boolean {
  return SECRET_NAMES.has(name) || SECRET_NAMES.has(name.replace(/^\?+/, '').toLowerCase());
}

/** Hides the whole value: even a prefix of a bearer token is too much in a shared log. */
function mask(value: string): string {
  return value.length === 0 ? value : REDACTED;
}

/** A URL with a password in it (`http://user:pass@host`) and every secret query parameter masked. */
export function redactUrl(url: string): string {
  // Up to the last `@` before the path: a password may hold an `@` of its own.
  const shown = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#]*@/i, `$1:${REDACTED}@`);
  const q = shown.indexOf('?');
  if (q === -1) return shown;
  return shown.slice(0, q + 1) + redactQuery(shown.slice(q + 1));
}

/** `a=1&code=xyz` → `a=1&code=[redacted]`; keeps order and encoding of the other pairs. */
export function redactQuery(query: string, isSecret = isSecretName): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        name = pair.slice(0, eq);
      }
      return isSecret(name) ? `${pair.slice(0, eq)}=${mask(pair.slice(eq + 1))}` : pair;
    })
    .join('&');
}

/**
 * Header value as it may be shown: credentials in Authorization/Cookie are masked, and so are the
 * secret parameters of a redirect's Location (a code on its way to the redirect URI).
 */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'location' || lower === 'content-location') return redactUrl(value);
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const space = value.indexOf(' ');
    return space === -1 ? REDACTED : `${value.slice(0, space)} ${REDACTED}`;
  }
  if (lower === 'cookie' || lower === 'set-cookie') return REDACTED;
  return value;
}

/**
 * Deep copy of a JSON value with secret members masked: a string under any secret name, and a
 * value of any other type (a number, an array, an object; not a boolean or null, which hold no
 * secret) under a name that data members are secrets by (`{"password": 12345678}`; a JSON-RPC
 * error's `code` stays a number).
 */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value !== null && typeof value === 'object') {
    // fromEntries, not assignment: a member named `__proto__` stays a member of the copy.
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [
        key,
        typeof member === 'string' && isSecretName(key)
          ? mask(member)
          : member !== null && typeof member !== 'boolean' && isSecretMember(key)
            ? REDACTED
            : redactJson(member),
      ]),
    );
  }
  return value;
}

/**
 * A request or response body as it may be shown: form bodies and JSON bodies get their secret
 * members masked; anything else is shown only by its length, since it cannot be inspected safely.
 */
export function redactBody(body: string, contentType = ''): string {
  if (body === '') return body;
  if (contentType.includes('application/x-www-form-urlencoded')) return redactQuery(body);
  try {
    // Digit for digit: a trace shows the long numbers that were sent, not a double's rounding.
    return restoreExact(JSON.stringify(redactJson(parseExact(body))));
  } catch {
    return contentType.includes('text/') ? body : `<${Buffer.byteLength(body)} bytes>`;
  }
}

/** The last word of a name that makes it a secret's: `api_token`, `raw_state`, `userPassword`. */
const SECRET_LAST_WORD =
  /(?:^|[^a-z0-9])(?:token|secret|password|passwd|pwd|key|state|code|verifier|challenge)$/;

/**
 * Whether a name in a body someone else wrote holds a secret: the names above, or any name whose
 * last word is a secret's (a consent form's `raw_state`, a param's `apiKey`). A `token_type_hint`
 * or `token_type` tells which, not what.
 */
function isSecretLikeName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return isSecretName(name) || SECRET_LAST_WORD.test(words);
}

/** `"name": value` in JSON text; the value a string (perhaps cut off by the end) or a scalar. */
const JSON_MEMBER = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[-\w.+]+)/g;

/**
 * The start of a body, cut anywhere, as it may be shown: a JSON text's secret members (strings,
 * numbers) and a form's secret parameters masked by name. No parsing: the cut may split a value.
 */
export function redactExcerpt(text: string): string {
  if (!/^\s*[[{]/.test(text)) return redactQuery(text, isSecretLikeName);
  return text.replace(JSON_MEMBER, (member, name: string, colon: string) => {
    let key = name;
    try {
      key = JSON.parse(`"${name}"`) as string;
    } catch {
      // an escape cut in half: the name as written
    }
    return isSecretLikeName(key) ? `"${name}"${colon}"${REDACTED}"` : member;
  });
}
