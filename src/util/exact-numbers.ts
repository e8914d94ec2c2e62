// JSON numbers a double cannot hold (64-bit ids, amounts with many digits) kept digit for digit
// through the CLI: what is typed in params is sent as typed, what the service answers is printed
// as it answered. JSON.parse would round them, and JSON.stringify print the rounded value. While
// parsed, such a number is a string that carries a per-process mark and its digits; restoreExact
// turns each back into the number in JSON text. Node 20 has no JSON.rawJSON, which would do this;
// docs/design/exact-numbers.md says why no library does it here. Pure.

/** The mark of a kept number: a NUL (never in a service's text unescaped) and a random tag. */
const MARK = `\u0000dasvc-number-${Math.random().toString(36).slice(2, 10)}:`;
/** The same mark as JSON.stringify writes it inside a string. */
const MARK_IN_JSON = JSON.stringify(MARK).slice(1, -1);
const MARKED = new RegExp(`"${MARK_IN_JSON.replace(/\\/g, '\\\\')}(-?[0-9][0-9.eE+-]*)"`, 'g');

/**
 * What a number a double rounds holds: a run of digits (and a point) longer than 15, or an
 * exponent of three digits. Most texts have neither.
 */
const LONG_RUN = /[0-9.]{16}|[eE][+-]?[0-9]{3}/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * A number's text as sign, significant digits and the power of ten before them (`-12e3` for
 * -0.12e3): two texts of one value give one form. Zero is `0`, whatever its sign.
 */
function decimalForm(text: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] =
    /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text) ?? [];
  const all = `${whole}${fraction}`;
  const digits = all.replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  const power = (whole ?? '').length - (all.length - digits.length) + Number(exponent);
  return `${sign}${significant}e${power}`;
}

/**
 * Whether a double would not give a JSON number's text back: its value is not the double's
 * (more digits than it keeps, or past its range: Infinity, printed null; or 0).
 */
function isLong(token: string): boolean {
  const value = Number(token);
  return !Number.isFinite(value) || decimalForm(String(value)) !== decimalForm(token);
}

/**
 * `text` with each long number outside strings written as a marked string; the same text when it
 * has none.
 */
function markLongNumbers(text: string): string {
  if (!LONG_RUN.test(text)) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skipped whole, its escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)?.[0];
      if (token === undefined) continue;
      if (isLong(token)) {
        out += `${text.slice(from, i)}"${MARK_IN_JSON}${token}"`;
        from = i + token.length;
      }
      i += token.length - 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * JSON.parse, with every number a double cannot hold exactly kept as its digits (marked) for
 * restoreExact. A text that is not JSON throws JSON.parse's own error about it. `parsed`: the text
 * as JSON.parse gave it already, returned as it is when nothing is to be kept.
 */
export function parseExact(text: string, parsed?: { value: unknown }): unknown {
  const marked = markLongNumbers(text);
  if (marked === text) return parsed ? parsed.value : (JSON.parse(text) as unknown);
  // The text as given must be JSON (a number where a key belongs is not), in JSON.parse's words.
  if (!parsed) JSON.parse(text);
  return JSON.parse(marked) as unknown;
}

/**
 * A value as JSON.parse would have read it: a number parseExact kept is the number a double
 * makes of it (where the two meet, as an answer's id meets the id of its call).
 */
export function asParsed(value: unknown): unknown {
  const digits = keptNumber(value);
  return digits === undefined ? value : Number(digits);
}

/** The text of a number parseExact kept, or undefined for any other value. */
export function keptNumber(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : undefined;
}

/** JSON text with each number parseExact kept written back as the number it was. */
export function restoreExact(json: string): string {
  return json.includes(MARK_IN_JSON) ? json.replace(MARKED, '$1') : json;
}
