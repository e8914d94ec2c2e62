import type { Prompter } from '../client/resolve-settings.js';

/** Interactive only when stdin and stdout are terminals and `CI` is unset (SPEC §2). */
export function isInteractive(
  env: NodeJS.ProcessEnv,
  stdin: { isTTY?: boolean },
  stdout: { isTTY?: boolean },
): boolean {
  return Boolean(stdin.isTTY && stdout.isTTY && !env.CI);
}

/** A Prompter backed by @inquirer/prompts, loaded on first use (it costs ~80 ms to import). */
export function inquirerPrompter(): Prompter {
  return {
    async input(message, options = {}) {
      const prompts = await import('@inquirer/prompts');
      if (options.secret) return prompts.password({ message, mask: '*' });
      return prompts.input({ message, default: options.default });
    },
    async select(message, choices, defaultValue) {
      const prompts = await import('@inquirer/prompts');
      return prompts.select({
        message,
        choices: choices.map((value) => ({ value, name: value })),
        default: defaultValue,
      });
    },
  };
}
