import { UsageError } from '../errors.js';
import { isObject } from './guards.js';
import { nearestNames } from './nearest-names.js';
import { shown } from './printable.js';

/**
 * What one option of a library function takes when given: a value of that `typeof` (`object`: a
 * plain object), a value `is` accepts (what it `must` be, in words), or `checked` where the
 * function checks the value itself, with words of its own.
 */
export type OptionKind =
  | 'string'
  | 'boolean'
  | 'function'
  | 'object'
  | 'checked'
  | { is: (value: unknown) => boolean; must: string };

/**
 * The options object a JavaScript caller gave a library function (`where`), checked before it is
 * used: an object or nothing; no option the function does not know (a misspelt `baseURL` would
 * otherwise leave `baseUrl` to a variable, and the client's secret with it); and each value of
 * the kind its option takes. Usage errors naming the option.
 */
export function checkLibraryOptions(
  options: unknown,
  known: Readonly<Record<string, OptionKind>>,
  where: string,
): void {
  const bad = (message: string) => new UsageError(`${where}: ${message}`, { code: 'bad_option' });
  if (options === undefined) return;
  if (!isObject(options)) throw bad(`its options must be an object, got ${shown(options)}`);
  for (const [name, value] of Object.entries(options)) {
    const kind = Object.hasOwn(known, name) ? known[name] : undefined;
    if (kind === undefined) {
      const near = nearestNames(name, Object.keys(known), 1)[0];
      throw bad(`unknown option ${JSON.stringify(name)}${near ? ` (did you mean ${near}?)` : ''}`);
    }
    if (value === undefined || kind === 'checked') continue;
    const { is, must } =
      typeof kind === 'object'
        ? kind
        : kind === 'object'
          ? { is: isObject, must: 'an object' }
          : { is: (v: unknown) => typeof v === kind, must: `a ${kind}` };
    if (!is(value)) throw bad(`option ${name} must be ${must}, got ${shown(value)}`);
  }
}
