import { isStackOverflow } from './stack-overflow.js';
/* eslint-disable no-control-regex -- control characters are what these patterns are about */

/**
 * Control characters, line breaks included, and the bidirectional controls: they would forge log
 * lines, drive the terminal, or show text in another order than it is.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Control characters but line breaks and tabs, which a multi-line message may keep. */
const CONTROL_BUT_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * What JSON.stringify leaves as it is and a terminal would act on: DEL, the C1 controls, the line
 * and bidirectional controls. In JSON text they stand only inside strings, so their escapes keep
 * the document's value.
 */
const JSON_UNESCAPED = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with what `pattern` matches as `\uXXXX` escapes. */
function escaped(text: string, pattern: RegExp): string {
  // Most values have none: a search is cheaper than a replace that finds nothing.
  if (text.search(pattern) === -1) return text;
  return text.replace(pattern, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` for one line of a log or of stderr: control characters as `\uXXXX`. */
export function printable(text: string): string {
  return escaped(text, CONTROL);
}

/**
 * Text for a person's terminal that may hold what a service or a command line sent: control
 * characters (an escape sequence, a bell, C1 codes) as `\uXXXX`, line breaks and tabs kept. A
 * service's error message must not retitle the window, clear the screen or forge a prompt.
 */
export function terminalText(text: string): string {
  return escaped(text, CONTROL_BUT_LINES);
}

/** JSON text for stdout, a terminal's or not: the same value, with nothing a terminal acts on. */
export function safeJson(text: string): string {
  return escaped(text, JSON_UNESCAPED);
}

/** A value as a message may name it: its JSON where it has one, else its type. */
export function shown(value: unknown): string {
  // JSON.stringify leaves C1, line and bidirectional controls as they are: printable escapes them.
  if (typeof value === 'string')
    return printable(JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value));
  if (value == null || typeof value === 'boolean' || typeof value === 'number')
    return String(value);
  return kindOf(value);
}

/** What a value is, not what it holds: `a number`, `an array`, `null`. */
export function kindOf(value: unknown): string {
  if (value == null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A JSON value quoted in a message: at most `max` characters; one nested too deep for
 * JSON.stringify (a hostile file or request) is named, not allowed to overflow the stack.
 */
export function shownJson(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch (error) {
    // Deeper than the stack goes; else a cycle or a BigInt, named by what it is.
    if (!isStackOverflow(error)) return shown(value);
    return `${Array.isArray(value) ? 'an array' : 'an object'} nested too deep to show`;
  }
  return printable(text.length > max ? `${text.slice(0, max)}…` : text);
}
