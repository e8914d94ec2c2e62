// Masking secrets by value, where names cannot find them. SPEC §6: nothing secret is ever written
// to the record folder or shown in a violation — every secret that passes the proxy is remembered,
// whatever its JSON type, and masked wherever it recurs, in its common encodings too. SPEC §3: what
// the CLI sent is never shown back, even when a service echoes it in a refusal
// (src/http/request-secrets.ts). Any string that contains a remembered secret is masked; a short
// one (3 to 5 characters) only where it stands alone, not inside a longer word. Pure.
import { NeedleSet } from './needle-set.js';
import { isOAuthSecret, isSecretHolder, isSecretMember, REDACTED } from './redact.js';
import { secretForms } from './secret-forms.js';

/**
 * Values shorter than this are masked only where they stand alone (a whole string value, or
 * between characters that are not letters or digits: `"abc12"`, `=abc12&`): masking "1" inside
 * every string would hide real data, but a 5-character client secret is a secret all the same.
 * Values under WHOLE_MIN (1 or 2 characters) are no secret to keep: every "id" would go.
 */
const MIN_LENGTH = 6;
const WHOLE_MIN = 3;

/**
 * Deeper than this, a value is replaced whole by a placeholder of its type: nothing nested so
 * deep is shown or written, and masking never runs out of stack.
 */
export const MASK_DEPTH = 256;

/** A value of the same JSON type that tells nothing of a secret (booleans and null hold none). */
function concealed(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return REDACTED;
  if (typeof value === 'number') return 0;
  if (Array.isArray(value))
    return depth >= MASK_DEPTH ? [] : value.map((v) => concealed(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    if (depth >= MASK_DEPTH) return {};
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, concealed(member, depth + 1)]),
    );
  }
  return value;
}

/**
 * The secrets an Authorization value holds: the whole of it, its credentials (a bearer token,
 * Basic's base64), and Basic's secret as sent and percent-decoded (RFC 6749 §2.3.1).
 */
export function authorizationSecrets(value: string): string[] {
  const found = [value];
  const space = value.indexOf(' ');
  if (space === -1) return found;
  const credentials = value.slice(space + 1).trim();
  found.push(credentials);
  if (value.slice(0, space).toLowerCase() !== 'basic') return found;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return found;
  const secret = decoded.slice(colon + 1);
  found.push(secret);
  try {
    found.push(decodeURIComponent(secret.replace(/\+/g, ' ')));
  } catch {
    // not percent-encoded: the raw form is there already
  }
  return found;
}

/** The secret values seen so far, and masking by value. */
export class SecretValues {
  private readonly inside = new NeedleSet(MIN_LENGTH);
  /** Short secrets (under MIN_LENGTH), masked where they stand alone. */
  private readonly whole = new Set<string>();
  /** The short secrets as one pattern, made again when one is added. */
  private alone: RegExp | undefined;
  /** Grows whenever a secret (or one of its forms) is remembered for the first time. */
  version = 0;

  /** Remembers one value and the forms it takes encoded (URL, JSON, base64, hex). */
  add(value: string | undefined): void {
    if (value === undefined || value.length < WHOLE_MIN) return;
    this.remember(value);
    for (const form of secretForms(value, value.length >= MIN_LENGTH)) this.remember(form);
  }

  private remember(value: string): void {
    if (value.length >= MIN_LENGTH) {
      if (this.inside.add(value)) this.version++;
    } else if (value.length >= WHOLE_MIN && !this.whole.has(value)) {
      this.whole.add(value);
      this.version++;
      const escaped = [...this.whole].map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.alone = new RegExp(`(?<![A-Za-z0-9])(?:${escaped.join('|')})(?![A-Za-z0-9])`, 'g');
    }
  }

  /**
   * Remembers a secret of any JSON type: a string, a number (by its digits), every string and
   * number inside an array or an object.
   */
  addValue(value: unknown): void {
    const stack = [value];
    while (stack.length > 0) {
      const next = stack.pop();
      if (typeof next === 'string') this.add(next);
      else if (typeof next === 'number') {
        this.add(String(next));
        // The digits of a negative one recur as a positive number too.
        if (next < 0) this.add(String(-next));
      } else if (next !== null && typeof next === 'object') {
        for (const member of Object.values(next)) stack.push(member);
      }
    }
  }

  /**
   * Remembers the values of the members that hold a secret (named like one, the secret word
   * last), at any depth of a JSON value.
   */
  addMembers(value: unknown): void {
    // A stack, not recursion: params nested deeper than any stack are still read.
    const stack = [value];
    while (stack.length > 0) {
      const next = stack.pop();
      if (next === null || typeof next !== 'object') continue;
      if (Array.isArray(next)) {
        for (const item of next) if (item !== null && typeof item === 'object') stack.push(item);
        continue;
      }
      const object = next as Record<string, unknown>;
      for (const name in object) {
        const member = object[name];
        if (isSecretHolder(name)) this.addValue(member);
        else if (member !== null && typeof member === 'object') stack.push(member);
      }
    }
  }

  /** Remembers the secret parameters of a query string or form body. */
  addParams(source: string): void {
    if (source === '') return;
    for (const [name, value] of new URLSearchParams(source)) {
      if (isOAuthSecret(name) || isSecretHolder(name)) this.add(value);
    }
  }

  /** Remembers an Authorization value: the whole of it, its credentials, Basic's secret. */
  addAuthorization(value: string | undefined): void {
    if (value === undefined) return;
    for (const secret of authorizationSecrets(value)) this.add(secret);
  }

  /**
   * Remembers the secrets of a JSON body: a token answer's tokens, a request's OAuth parameters
   * (top-level members by their OAuth names), members named like secrets at any depth.
   */
  addJson(body: string): void {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return; // not JSON: nothing to learn
    }
    if (value === null || typeof value !== 'object') return;
    if (!Array.isArray(value)) {
      for (const [name, member] of Object.entries(value)) {
        if (isOAuthSecret(name)) this.addValue(member);
      }
    }
    this.addMembers(value);
  }

  /** A string with every remembered secret in it masked. */
  maskText(text: string): string {
    if (this.whole.has(text)) return REDACTED;
    const out = this.alone === undefined ? text : text.replace(this.alone, REDACTED);
    return this.inside.replace(out, REDACTED);
  }

  /** Whether a number's digits are a remembered secret, or hold one. */
  private isSecretNumber(value: number): boolean {
    const digits = String(value);
    return (
      this.whole.has(digits) ||
      (digits.length >= MIN_LENGTH && this.inside.replace(digits, REDACTED) !== digits)
    );
  }

  /** A member name with every remembered secret of MIN_LENGTH or more in it masked. */
  private maskName(name: string): string {
    // A member name equal to a short secret is a coincidence, not an echo: names keep.
    return this.inside.replace(name, REDACTED);
  }

  /**
   * A copy of a JSON value (params, a result, error data) with every secret masked, its JSON type
   * kept: members named like secrets whatever their value (a string becomes `[redacted]`, a
   * number 0, an array or object keeps its shape with its strings and numbers so masked), and
   * every string or number that holds a remembered secret.
   */
  mask(value: unknown): unknown {
    return this.copy(value, 0, (key, member, depth) =>
      isSecretMember(key) ? concealed(member, depth) : undefined,
    );
  }

  /**
   * A copy of a document (an OpenRPC document, a users file) with every remembered secret masked
   * by value, in strings, numbers and member names; names decide nothing here (a schema's
   * `properties.password` is a schema, not a secret), but for an example param named like a
   * secret (`{"name": "password", "value": …}`), whose value is that member's.
   */
  maskDocument(value: unknown): unknown {
    return this.copy(value, 0, (key, member, depth, object) =>
      key === 'value' && typeof object.name === 'string' && isSecretMember(object.name)
        ? concealed(member, depth)
        : undefined,
    );
  }

  /**
   * A copy with every remembered secret masked in strings, numbers and member names; `conceal`
   * gives a member's masked value where its place alone makes it a secret (else undefined).
   */
  private copy(
    value: unknown,
    depth: number,
    conceal: (
      key: string,
      member: unknown,
      depth: number,
      object: Record<string, unknown>,
    ) => unknown,
  ): unknown {
    if (typeof value === 'string') return this.maskText(value);
    if (typeof value === 'number') return this.isSecretNumber(value) ? 0 : value;
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MASK_DEPTH) return Array.isArray(value) ? [] : {};
    if (Array.isArray(value)) return value.map((v) => this.copy(v, depth + 1, conceal));
    const object = value as Record<string, unknown>;
    // fromEntries, not assignment: a member named `__proto__` stays a member of the copy.
    return Object.fromEntries(
      Object.entries(object).map(([key, member]) => [
        this.maskName(key),
        conceal(key, member, depth + 1, object) ?? this.copy(member, depth + 1, conceal),
      ]),
    );
  }
}
