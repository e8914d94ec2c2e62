import { InterruptedError } from '../errors.js';
import type { Prompter } from '../client/resolve-settings.js';

/** Interactive only when stdin and stdout are terminals and `CI` is unset (SPEC §2). */
export function isInteractive(
  env: NodeJS.ProcessEnv,
  stdin: { isTTY?: boolean },
  stdout: { isTTY?: boolean },
): boolean {
  return Boolean(stdin.isTTY && stdout.isTTY && !env.CI);
}

/**
 * Ctrl-C at a prompt (SPEC §3): the terminal is in raw mode, so no SIGINT arrives; inquirer rejects
 * with ExitPromptError instead. It becomes the interruption it is: exit 130, nothing more printed.
 */
async function answer<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError')
      throw new InterruptedError('interrupted at a prompt', {
        code: 'prompt_closed',
        cause: error,
      });
    throw error;
  }
}

/**
 * @inquirer/prompts on first use (importing it is costly). Its colours follow NO_COLOR, read
 * when it loads: `--no-color` sets it first (SPEC §3: no colour anywhere, prompts included).
 */
async function loadPrompts(color: boolean) {
  if (!color) process.env.NO_COLOR = '1';
  return import('@inquirer/prompts');
}

/** A Prompter backed by @inquirer/prompts, loaded on first use. */
export function inquirerPrompter(options: { color: boolean } = { color: true }): Prompter {
  const { color } = options;
  return {
    async input(message, options = {}) {
      const prompts = await loadPrompts(color);
      const validate = options.validate;
      if (options.secret)
        return answer(prompts.password({ message, mask: '*', ...(validate ? { validate } : {}) }));
      return answer(
        prompts.input({
          message,
          default: options.default,
          ...(validate ? { validate } : {}),
          // A refused answer is cleared, so that the next one is typed afresh, not appended to it.
          theme: { validationFailureMode: 'clear' },
        }),
      );
    },
    async select(message, choices, defaultValue) {
      const prompts = await loadPrompts(color);
      return answer(
        prompts.select({
          message,
          choices: choices.map((value) => ({ value, name: value })),
          default: defaultValue,
        }),
      );
    },
  };
}
