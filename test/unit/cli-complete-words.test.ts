import { describe, expect, it } from 'vitest';
import {
  completeWords,
  type CompletedLine,
  type CompletionSources,
} from '../../src/cli/commands/completion/complete-words.js';
import { shapeHelp } from '../../src/cli/help-text.js';
import { buildProgram } from '../../src/cli/program.js';

const PROFILES: Record<string, string> = { default: 'crm wiki', work: 'hr' };
const METHODS: Record<string, string[]> = {
  crm: ['contacts.list', 'contacts.get', 'rpc.discover'],
  hr: ['staff.list'],
};

/** The user's setup as plain values; `asked` records what the instance was asked for. */
function setup() {
  const asked: { scope: string; profile: string | undefined }[] = [];
  const sources: CompletionSources = {
    profiles: () => Object.keys(PROFILES),
    scopes: (profile) => (PROFILES[profile ?? 'default'] ?? '').split(' ').filter(Boolean),
    methods: async (scope: string, line: CompletedLine) => {
      asked.push({ scope, profile: line.options.get('--profile') });
      return METHODS[scope] ?? [];
    },
  };
  return { sources, asked };
}

async function complete(...words: string[]): Promise<string[]> {
  const root = await buildProgram(['node', 'dasvc']);
  return (await completeWords(root, words, setup().sources)).map((c) => c.value);
}

describe('completeWords: what dasvc completion offers (SPEC §3)', () => {
  it('commands and subcommands, with their descriptions', async () => {
    const root = await buildProgram(['node', 'dasvc']);
    const top = await completeWords(root, [''], setup().sources);
    // Every command the program declares, in its order, then help.
    expect(top.map((c) => c.value)).toEqual([...root.commands.map((c) => c.name()), 'help']);
    expect(top.map((c) => c.value)).toEqual(
      expect.arrayContaining(['login', 'logout', 'token', 'rpc', 'profile', 'completion', 'demo']),
    );
    expect(top.find((c) => c.value === 'rpc')?.description).toMatch(/JSON-RPC/);
    expect(await complete('to')).toEqual(['token']);
    expect(await complete('token', '')).toEqual(['status', 'print', 'refresh', 'revoke']);
    expect(await complete('--json', 'profile', 'u')).toEqual(['use']);
    expect(await complete('help', 'token', 're')).toEqual(['refresh', 'revoke']);
  });

  it("a command's flags and the global ones, each once", async () => {
    const revoke = await complete('token', 'revoke', '--');
    expect(revoke).toEqual(expect.arrayContaining(['--token', '--hint', '--all', '--help']));
    expect(revoke).toEqual(expect.arrayContaining(['--profile', '--json', '--verbose']));
    expect(await complete('token', 'revoke', '--h')).toEqual(['--hint', '--help']);
    expect(await complete('token', 'revoke', '--all', '--al')).toEqual([]);
    expect(await complete('--')).toContain('--version');
    expect(await complete('rpc', '--')).not.toContain('--scope');
    // What the help leaves out (flags the command never reads) is not offered either.
    const root = await buildProgram(['node', 'dasvc']);
    shapeHelp(root);
    const offered = (await completeWords(root, ['rpc', '--'], setup().sources)).map((c) => c.value);
    expect(offered).toContain('--api-url');
    expect(offered).not.toContain('--authorize-url');
  });

  it('flag values: --params, --hint, --profile, also as --flag=value', async () => {
    expect(await complete('login', '--params', '')).toEqual(['query', 'body']);
    expect(await complete('login', '--params=b')).toEqual(['--params=body']);
    expect(await complete('token', 'revoke', '--hint', '')).toEqual([
      'access_token',
      'refresh_token',
    ]);
    expect(await complete('--profile', '')).toEqual(['default', 'work']);
    expect(await complete('rpc', '--profile', 'w')).toEqual(['work']);
    // A value that is a file name: nothing, so that the shell offers files.
    expect(await complete('rpc', 'crm', '--batch', '')).toEqual([]);
  });

  it("shells, profile names, the profile's scopes after rpc, a scope's methods", async () => {
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('profile', 'use', '')).toEqual(['default', 'work']);
    expect(await complete('rpc', '')).toEqual(['crm', 'wiki']);
    expect(await complete('--profile', 'work', 'rpc', '')).toEqual(['hr']);
    expect(await complete('rpc', 'crm', 'contacts.')).toEqual(['contacts.list', 'contacts.get']);
    expect(await complete('rpc', 'crm', 'contacts.list', '')).toEqual([]);
  });

  it('asks for the methods of the scope typed, for the profile typed', async () => {
    const root = await buildProgram(['node', 'dasvc']);
    const { sources, asked } = setup();
    await completeWords(root, ['rpc', '--profile', 'work', 'hr', 's'], sources);
    expect(asked).toEqual([{ scope: 'hr', profile: 'work' }]);
    await completeWords(root, ['rpc', 'crm', '--batch', 'calls.json', ''], sources);
    expect(asked).toHaveLength(1);
  });
});
