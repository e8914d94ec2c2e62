import { describe, expect, it } from 'vitest';
import { helpAsFlag } from '../../src/cli/help-argv.js';
import { buildProgram } from '../../src/cli/program.js';

const argv = (...args: string[]) => ['node', 'dasvc', ...args];

describe('`dasvc help <command path>` shows the help of the whole path', () => {
  it('turns help and the path after it into the path and --help', async () => {
    const program = await buildProgram(argv('help'));
    const rewrite = (...args: string[]) => helpAsFlag(program, argv(...args)).slice(2);
    expect(rewrite('help', 'token', 'revoke')).toEqual(['token', 'revoke', '--help']);
    expect(rewrite('--profile', 'help', 'help', 'profile', 'show')).toEqual([
      '--profile',
      'help',
      'profile',
      'show',
      '--help',
    ]);
    expect(rewrite('token', 'help', 'revoke')).toEqual(['token', 'revoke', '--help']);
    expect(rewrite('help', 'rpc')).toEqual(['rpc', '--help']);
  });

  it('leaves alone what is not a help request for a known command', async () => {
    const program = await buildProgram(argv('help'));
    const rewrite = (...args: string[]) => helpAsFlag(program, argv(...args)).slice(2);
    expect(rewrite('help')).toEqual(['help']);
    // An unknown name goes to commander without `help`, which then names it.
    expect(rewrite('help', 'frobnicate')).toEqual(['frobnicate']);
    expect(rewrite('token', 'help', 'frob')).toEqual(['token', 'frob']);
    expect(rewrite('help', '--json')).toEqual(['help', '--json']);
    // After rpc, `help` is a method name, not a command.
    expect(rewrite('rpc', 'crm', 'help')).toEqual(['rpc', 'crm', 'help']);
    expect(rewrite('token', 'status')).toEqual(['token', 'status']);
  });
});
