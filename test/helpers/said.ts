import { expect } from 'vitest';
import { runCli } from './cli.js';

/** What a failed run says: its exit code, message and hint, and its `--json` error code. */
export interface Said {
  code: number;
  jsonCode: string;
  /** The line after `dasvc: ` on stderr (or the `error …` line of a JSON-RPC error). */
  message: string | RegExp;
  hint: string;
}

/**
 * Runs `args` twice, plain and with `--json`: stderr and the error document must both say
 * `said`. A run that changes what the store knows is given two config dirs in the same state.
 */
export async function expectSaid(
  args: string[],
  dirs: string | [string, string],
  said: Said,
  env: Record<string, string> = {},
): Promise<void> {
  const [dir, jsonDir] = typeof dirs === 'string' ? [dirs, dirs] : dirs;
  const human = await runCli(args, dir, { env });
  expect(human.code, human.stderr).toBe(said.code);
  const line = /^dasvc: (.*)$|^(error .*)$/m.exec(human.stderr);
  const message = line?.[1] ?? line?.[2];
  if (typeof said.message === 'string') expect(message).toBe(said.message);
  else expect(message).toMatch(said.message);
  expect(human.stderr).toContain(`\nhint: ${said.hint}\n`);
  const json = await runCli(['--json', ...args], jsonDir, { env });
  expect(json.code).toBe(said.code);
  const { error } = JSON.parse(json.stdout) as { error: { message: string } };
  expect(error).toMatchObject({ code: said.jsonCode, exitCode: said.code, hint: said.hint });
  if (typeof said.message === 'string') expect(error.message).toBe(said.message);
  else expect(error.message).toMatch(said.message);
}
