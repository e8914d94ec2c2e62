// The forms a secret value takes where it travels inside other text: URL encoding (a query, a form
// body), JSON string escapes, hex, and base64 — whole, and the part of it that any base64 text
// holding the secret's bytes carries, wherever they start. Pure.

/**
 * The base64 characters that depend on `bytes` alone when they sit `shift` bytes after a 3-byte
 * boundary of a longer base64 text (`Basic` credentials, a token inside an encoded JSON document):
 * the characters that also carry bits of the bytes before or after are left out.
 */
function base64Core(bytes: Buffer, shift: number): string {
  const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
  return text.slice(Math.ceil((shift * 4) / 3), Math.floor(((shift + bytes.length) * 4) / 3));
}

/** base64 → base64url (RFC 4648 §5), padding kept as it is. */
function urlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * `value` as it appears encoded: percent-encoded (`+` for a space too), JSON-escaped, base64 and
 * base64url with and without padding. With `inside`, also the forms only found inside longer
 * text: hex and the base64 cores of every alignment (for values long enough that a match inside
 * other text is no coincidence).
 */
export function secretForms(value: string, inside: boolean): string[] {
  const forms = new Set<string>();
  try {
    const encoded = encodeURIComponent(value);
    forms.add(encoded).add(encoded.replace(/%20/g, '+'));
  } catch {
    // A lone surrogate has no URL form.
  }
  forms.add(JSON.stringify(value).slice(1, -1));
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  for (const form of [base64, base64.replace(/=+$/, '')]) forms.add(form).add(urlSafe(form));
  if (inside) {
    const hex = bytes.toString('hex');
    forms.add(hex).add(hex.toUpperCase());
    for (const shift of [0, 1, 2]) {
      const core = base64Core(bytes, shift);
      forms.add(core).add(urlSafe(core));
    }
  }
  forms.delete(value);
  return [...forms];
}
