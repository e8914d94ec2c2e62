// Completion offers words that it reads from a server (method and param names) and from the
// config file (profile names, scopes). A word that holds whitespace or an invisible character
// cannot be one shell word however it is quoted, would split a line into several, and may draw on
// the terminal: such words are not offered at all.

/** Whitespace, control, format (bidi overrides, zero-width), private-use and unassigned characters. */
const INVISIBLE = /[\s\p{C}\p{Z}]/u;

/** Longer than any name a person types or reads in a list of candidates. */
const MAX_LENGTH = 256;

/** A word that can be offered at all: one visible shell word once quoted. */
export function isPlausibleWord(word: string): boolean {
  return word !== '' && word.length <= MAX_LENGTH && !INVISIBLE.test(word);
}

/**
 * A name (method, scope, profile) that can stand as an argument: a plausible word that does not
 * start with `-`, which the command line would take for a flag (`--api-url=…`) however quoted.
 */
export function isPlausibleName(name: string): boolean {
  return isPlausibleWord(name) && !name.startsWith('-');
}

/**
 * A param name that the `key=value` grammar of `dasvc rpc` reads back as itself: no `=` (the
 * first one ends the key), no trailing `:` (`key:=` is a typed value), not opening a JSON argument.
 */
export function isPlausibleParamName(name: string): boolean {
  return isPlausibleName(name) && !name.includes('=') && !name.endsWith(':') && !/^[[{]/.test(name);
}

/**
 * A word that every shell reads as itself with no quoting: what is offered to a completion
 * script that does not say which shell it quotes for (one loaded before words were quoted).
 */
export function needsNoQuoting(word: string): boolean {
  return /^[A-Za-z0-9_.,:/@+=-]+$/.test(word);
}
