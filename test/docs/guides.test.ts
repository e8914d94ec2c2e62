// Recipe: every `sh recipe` block of the guides and reference pages, run line by line in bash
// against a mock, logged in with --scope "crm wiki" as the guides say. A line ends with the exit
// code its comment promises (`# … exit 1 …`), else 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bash,
  codeBlocks,
  dasvcShellEnv,
  promisedExit,
  shellCommands,
} from '../helpers/doc-blocks.js';
import { browserEnv, loginArgs, runCli } from '../helpers/cli.js';
import { filesUnder } from '../helpers/files-under.js';
import { startMock } from '../helpers/mock-client.js';
import { scratchDir } from '../helpers/scratch.js';

const recipes = filesUnder('docs', '.md').flatMap((file) =>
  codeBlocks(file)
    .filter((block) => block.info === 'sh recipe')
    .map((block, i) => ({
      file,
      name: `${file}, block ${i + 1}`,
      commands: shellCommands(block.code),
    })),
);

let mock: { url: string; close(): Promise<void> };
beforeAll(async () => {
  mock = await startMock({ autoApprove: 'alice' });
});
afterAll(() => mock.close());

describe('the guides run as written', () => {
  it('the call-the-api and scripts guides hold recipes', () => {
    const files = new Set(recipes.map((recipe) => recipe.file));
    expect(files).toContain('docs/guides/call-the-api.md');
    expect(files).toContain('docs/guides/scripts.md');
  });

  it.each(recipes)('$name', async ({ commands }) => {
    const env = dasvcShellEnv();
    const cwd = scratchDir('dasvc-recipe-cwd-');
    // The login the guides start from is the reader's earlier step, not the recipe: run in this
    // process, into the config dir the recipe's shell uses.
    const login = await runCli(loginArgs(mock.url, 'crm wiki'), env.DASVC_CONFIG_DIR!, {
      env: browserEnv(),
    });
    expect(login.code, login.stderr).toBe(0);
    for (const command of commands) {
      const result = await bash(command, { cwd, env });
      expect(result.code, `${command}\n${result.stderr}`).toBe(promisedExit(command));
    }
  });
});
