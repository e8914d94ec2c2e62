// bash hands a completion function the words as typed, quotes included, and inserts what the
// function offers as it is: the words go in with bash's quoting removed, the candidates come back
// quoted by us. zsh (compadd) and fish quote what they insert themselves.

type Quote = "'" | '"';

/** A word as typed, with bash's quoting removed (nothing expanded), and the quote it leaves open. */
export interface TypedWord {
  value: string;
  /** The quote still open at the end of the word, and where it opened. */
  open?: { quote: Quote; at: number };
}

/** Characters that a double-quoted backslash escapes (bash(1), QUOTING). */
const ESCAPED_IN_DOUBLE = new Set(['$', '`', '"', '\\', '\n']);

/**
 * The value of a word typed on a bash line: backslashes, single and double quotes removed as the
 * shell would, `$` and the rest taken literally (completion runs nothing). A quote left open (the
 * user is typing inside it) ends the word.
 */
export function dequoteBash(raw: string): TypedWord {
  let value = '';
  let open: TypedWord['open'];
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (open?.quote === "'") {
      if (char === "'") open = undefined;
      else value += char;
    } else if (open?.quote === '"') {
      if (char === '"') open = undefined;
      else if (char === '\\' && ESCAPED_IN_DOUBLE.has(raw[i + 1] ?? '')) value += raw[++i];
      else value += char;
    } else if (char === '\\') {
      value += raw[++i] ?? '';
    } else if (char === "'" || char === '"') {
      open = { quote: char, at: i };
    } else value += char;
  }
  return open ? { value, open } : { value };
}

/** What needs no quoting in a bash word. */
const PLAIN = /[A-Za-z0-9_.,:/@+=\u0080-\uffff-]/;

/**
 * `text` written so that bash reads it back as itself: outside quotes, each special character
 * backslashed; inside an open single quote, up to a closing one; inside an open double quote, `$`
 * `` ` `` `"` `\` backslashed and `!` (history expansion) single-quoted, up to a closing one.
 */
export function quoteForBash(text: string, inside?: Quote): string {
  if (inside === "'") return `${text.replaceAll("'", `'\\''`)}'`;
  let quoted = '';
  for (const char of text) {
    if (inside === '"')
      quoted += char === '!' ? `"'!'"` : ESCAPED_IN_DOUBLE.has(char) ? `\\${char}` : char;
    else quoted += PLAIN.test(char) ? char : `\\${char}`;
  }
  return inside === '"' ? `${quoted}"` : quoted;
}

/**
 * The COMPREPLY entries for `candidates` (whole words) when the word typed so far is `raw` and
 * readline will replace its last part `replaced` (bash cuts words at `=` and `:`, and readline's
 * word starts after an open quote): each candidate less what stays on the line, quoted to go
 * where readline puts it. Candidates that do not extend what stays are left out.
 */
export function bashReplies(candidates: string[], raw: string, replaced: string): string[] {
  const typed = dequoteBash(raw);
  const stays = typed.open
    ? raw.slice(0, typed.open.at)
    : raw.endsWith(replaced)
      ? raw.slice(0, raw.length - replaced.length)
      : '';
  const kept = dequoteBash(stays).value;
  return candidates
    .filter((candidate) => candidate.startsWith(kept))
    .map((candidate) => quoteForBash(candidate.slice(kept.length), typed.open?.quote));
}
