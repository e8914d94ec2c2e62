// Masking secrets by value, where names cannot find them. SPEC §6: nothing secret is ever written
// to the record folder or shown in a violation — every secret that passes the proxy is remembered.
// SPEC §3: what the CLI sent is never shown back, even when a service echoes it in a refusal
// (src/http/request-secrets.ts). Any string that contains a remembered secret is masked; a short
// one (3 to 5 characters) only where it stands alone, not inside a longer word. Pure.
import { REDACTED } from './redact.js';

/** OAuth parameters and token-response members whose values are secrets (SERVICE.md 4, RFC 6749). */
const SECRET_PARAMS = [
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'client_secret',
  'code_verifier',
  'state',
  'token',
  'password',
];

/**
 * Member names whose values are secrets wherever they appear (params and results too). Not `code`
 * or `state`: in results those are ordinary words (a country code, an order state), and their
 * secret values are caught by value.
 */
const SECRET_MEMBERS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code_verifier',
  'password',
]);

/**
 * Values shorter than this are masked only where they stand alone (a whole string value, or
 * between characters that are not letters or digits: `"abc12"`, `=abc12&`): masking "1" inside
 * every string would hide real data, but a 5-character client secret is a secret all the same.
 * Values under WHOLE_MIN (1 or 2 characters) are no secret to keep: every "id" would go.
 */
const MIN_LENGTH = 6;
const WHOLE_MIN = 3;

/** The secret values seen so far, and masking by value. */
export class SecretValues {
  private readonly values = new Set<string>();
  /** Short secrets (under MIN_LENGTH), masked where they stand alone. */
  private readonly whole = new Set<string>();
  /** The short secrets as one pattern, made again when one is added. */
  private alone: RegExp | undefined;

  /**
   * Remembers one value, and the forms a URL or a form body gives it (`+/=` as `%2B%2F%3D`, a
   * space as `+`): an echo of the raw query carries those.
   */
  add(value: string | undefined): void {
    if (value === undefined || value.length < WHOLE_MIN) return;
    this.remember(value);
    let encoded: string;
    try {
      encoded = encodeURIComponent(value);
    } catch {
      // A lone surrogate has no URL form: the value itself is kept, and the secrets after it
      // still are (addJson would otherwise stop at this one).
      return;
    }
    if (encoded !== value) {
      // An encoded form can be long enough for substrings while its value was not.
      for (const form of [encoded, encoded.replace(/%20/g, '+')]) this.remember(form);
    }
  }

  private remember(value: string): void {
    if (value.length >= MIN_LENGTH) {
      this.values.add(value);
    } else if (!this.whole.has(value)) {
      this.whole.add(value);
      const escaped = [...this.whole].map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.alone = new RegExp(`(?<![A-Za-z0-9])(?:${escaped.join('|')})(?![A-Za-z0-9])`, 'g');
    }
  }

  /** Remembers the secret parameters of a query string or form body. */
  addParams(source: string): void {
    if (source === '') return;
    for (const [name, value] of new URLSearchParams(source)) {
      if (SECRET_PARAMS.includes(name)) this.add(value);
    }
  }

  /** Remembers an Authorization value: the whole of it, its credentials, Basic's secret. */
  addAuthorization(value: string | undefined): void {
    if (value === undefined) return;
    this.add(value);
    const space = value.indexOf(' ');
    if (space === -1) return;
    const credentials = value.slice(space + 1).trim();
    this.add(credentials);
    if (value.slice(0, space).toLowerCase() !== 'basic') return;
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return;
    const secret = decoded.slice(colon + 1);
    this.add(secret);
    try {
      this.add(decodeURIComponent(secret.replace(/\+/g, ' ')));
    } catch {
      // not percent-encoded: the raw form is remembered already
    }
  }

  /** Remembers the secret members of a JSON body (a token response). */
  addJson(body: string): void {
    try {
      const value: unknown = JSON.parse(body);
      if (value === null || typeof value !== 'object') return;
      for (const [name, member] of Object.entries(value as Record<string, unknown>)) {
        if (SECRET_PARAMS.includes(name) && typeof member === 'string') this.add(member);
      }
    } catch {
      // not JSON: nothing to learn
    }
  }

  /** A string with every remembered secret in it masked. */
  maskText(text: string): string {
    if (this.whole.has(text)) return REDACTED;
    const out = this.alone === undefined ? text : text.replace(this.alone, REDACTED);
    return this.maskInside(out);
  }

  /** `text` with every remembered secret of MIN_LENGTH or more in it masked. */
  private maskInside(text: string): string {
    let out = text;
    for (const secret of this.values) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  /** A copy of a JSON value: secret members and every string holding a secret masked. */
  mask(value: unknown): unknown {
    if (typeof value === 'string') return this.maskText(value);
    if (Array.isArray(value)) return value.map((v) => this.mask(v));
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    // An OpenRPC example of a by-name param (`{"name": "password", "value": …}`) holds that
    // member's value: a secret one is masked as the member would be.
    const secretExample = typeof object.name === 'string' && SECRET_MEMBERS.has(object.name);
    // fromEntries, not assignment: a member named `__proto__` stays a member of the copy.
    return Object.fromEntries(
      // A member name equal to a short secret is a coincidence, not an echo: names keep.
      Object.entries(object).map(([key, member]) => [
        this.maskInside(key),
        (SECRET_MEMBERS.has(key) || (secretExample && key === 'value')) &&
        typeof member === 'string'
          ? REDACTED
          : this.mask(member),
      ]),
    );
  }
}
