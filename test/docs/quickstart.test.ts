// Recipe: the README's quickstart, run as written. Its first block starts the mock (here on a free
// port rather than 8080, which another program may hold); its second block's lines run in bash
// against that mock, the browser being the stand-in that approves as alice on the consent page.
import { expect, it } from 'vitest';
import { STANDIN_BROWSER } from '../helpers/cli.js';
import { bash, codeBlocks, dasvcShellEnv, shellCommands } from '../helpers/doc-blocks.js';
import { spawnMock } from '../helpers/mock-process.js';
import { scratchDir } from '../helpers/scratch.js';

it('the quickstart: dasvc mock, then login through the consent page and a call', async () => {
  const [start, use, ...rest] = codeBlocks(
    'README.md',
    '## Quickstart: sixty seconds against the mock',
  ).map((block) => shellCommands(block.code));
  expect(rest).toEqual([]);
  expect(start).toEqual(['dasvc mock']);
  const mock = await spawnMock();
  try {
    expect(mock.stdout()).toMatch(/^listening on /);
    const env = dasvcShellEnv({ BROWSER: `${process.execPath} ${STANDIN_BROWSER}` });
    const cwd = scratchDir('dasvc-quickstart-');
    const outputs: string[] = [];
    for (const command of use!) {
      const result = await bash(command.replaceAll('http://127.0.0.1:8080', mock.url), {
        cwd,
        env,
      });
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
      outputs.push(result.stdout);
    }
    expect(use![0]).toMatch(/^dasvc login .*--scope "crm wiki"$/);
    expect(outputs[0]).toMatch(/^profile default · scope crm wiki · /);
    expect(use!.at(-1)).toBe('dasvc rpc crm contacts.list');
    expect(JSON.parse(outputs.at(-1)!).map((c: { name: string }) => c.name)).toEqual([
      'Ada Lovelace',
      'Grace Hopper',
    ]);
    // The consent page was shown and approved: the mock logged the form's POST as alice.
    expect(mock.stdout()).toMatch(/POST \/webservice\/authorize\/ 302 .*user=alice/);
  } finally {
    await mock.stop();
  }
});
