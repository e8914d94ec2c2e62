import { UsageError } from '../errors.js';
import type { ConfigFile, KeychainEntry } from '../schemas/config-file.js';
import {
  validateConfigFile,
  validateKeychainEntry,
  validateProfileName,
} from '../schemas/config-file.validator.js';
import { jsonSyntaxProblem } from '../util/json-error.js';
import { checkSchema, type SchemaValidator } from '../util/schema-check.js';

// The config file's format and its OS credential store entries' are one schema
// (src/schemas/config-file.schema.json): an entry holds the secret members of a profile.

/** Throws the usage error (exit 2) for a profile name that cannot be used; `source` says where it came from. */
export function checkProfileName(name: string, source = '--profile'): string {
  if (!validateProfileName(name)) {
    throw new UsageError(
      `${source}: ${JSON.stringify(name)} is not a usable profile name (1–64 of A–Z a–z 0–9 . _ -; not __proto__, constructor or prototype)`,
      { code: 'bad_profile_name' },
    );
  }
  return name;
}

/** A value of a format, or where and how it departs from it (`/profiles/a/baseUrl: must be …`). */
type Shaped<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

function shaped<T>(validate: SchemaValidator<T>, data: unknown): Shaped<T> {
  const checked = checkSchema(validate, data);
  if (checked.problem === undefined) return { value: checked.value };
  const { pointer, problem } = checked.problem;
  return { problem: pointer === '' ? `it ${problem}` : `${pointer}: ${problem}` };
}

/** The parsed config file as its format, or its first problem. Members dasvc does not know stay. */
export function configFileShape(data: unknown): Shaped<ConfigFile> {
  return shaped(validateConfigFile, data);
}

/**
 * The config file `file` from its text. Text that is not JSON, or not of the format dasvc writes,
 * is a UsageError naming the file and what is wrong where.
 */
export function parseConfigFile(text: string, file: string): ConfigFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `config file ${file} is not valid JSON (${jsonSyntaxProblem(error)}); fix or remove it`,
      { code: 'config_corrupt' },
    );
  }
  const { value, problem } = configFileShape(data);
  if (problem !== undefined) {
    throw new UsageError(`config file ${file} is corrupt: ${problem}; fix or remove it`, {
      code: 'config_corrupt',
    });
  }
  return value;
}

/** A parsed entry of the OS credential store as its format, or its first problem. */
export function keychainEntryShape(data: unknown): Shaped<KeychainEntry> {
  return shaped(validateKeychainEntry, data);
}
