// Reading one fixture file, and the usage error that names it: `fixture <file>: <JSON pointer>:
// <problem>`, the file named under the folder as the user gave it.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../errors.js';
import { fileProblem } from '../../util/file-problem.js';
import { jsonSyntaxProblem } from '../../util/json-error.js';
import { fail, FixtureProblem } from './descriptors.js';
import { readRegularFile } from '../../util/regular-file.js';

export function readText(file: string): string {
  try {
    return readRegularFile(file);
  } catch (error) {
    return fail(`cannot read it (${fileProblem(error)})`);
  }
}

export function readJson(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text, line breaks and all: the problem alone keeps it one line.
    return fail(`not valid JSON: ${jsonSyntaxProblem(error)}`);
  }
}

/**
 * `file` named under the folder as the user gave it (`--fixtures ./fx` → `./fx/users.json`), not
 * relative to the working directory (`../../tmp/…`).
 */
export function shownFile(dir: string, file: string): string {
  const inside = relative(resolve(dir), file);
  return inside === ''
    ? dir
    : inside.startsWith('..') || isAbsolute(inside)
      ? file
      : `${dir.replace(/[\\/]+$/, '')}${sep}${inside}`;
}

/** `fixture <file>: <JSON pointer>: <problem>` (SPEC §6), the pointer left out for a whole file. */
export function fixtureLine(shown: string, problem: string, pointer: string): string {
  return `fixture ${shown}: ${pointer === '' ? '' : `${pointer}: `}${problem}`;
}

/**
 * The facts a broken file's error carries, for its hint: which flag gave the folder. `{ folder }`
 * is the fixtures folder's; the folder `--record` adds to, or what `dasvc types --from` reads, has
 * its own way out.
 */
export type FolderFacts = Readonly<Record<string, unknown>>;

/** One usage error naming every problem of one file, a line each. */
export function fixtureError(
  dir: string,
  file: string,
  problem: string,
  pointer = '',
  others: { message: string; pointer: string }[] = [],
  facts: FolderFacts = { folder: dir },
): UsageError {
  const shown = shownFile(dir, file);
  const lines = [{ message: problem, pointer }, ...others].map((p) =>
    fixtureLine(shown, p.message, p.pointer),
  );
  return new UsageError(lines.join('\n'), { code: 'bad_fixture', facts });
}

/** Runs `parse` on one file; any problem becomes a usage error naming the file. */
export function withFile<T>(
  dir: string,
  file: string,
  parse: () => T,
  facts: FolderFacts = { folder: dir },
): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FixtureProblem) {
      throw fixtureError(dir, file, error.message, error.pointer, error.others, facts);
    }
    throw error;
  }
}
