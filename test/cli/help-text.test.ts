import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { examplesOf, shapeHelp } from '../../src/cli/help-text.js';
import { buildProgram } from '../../src/cli/program.js';

/** Every command of the program with its path ('' for dasvc itself). */
function commandsOf(root: Command): [string, Command][] {
  const out: [string, Command][] = [];
  const walk = (command: Command, path: string[]) => {
    out.push([path.join(' '), command]);
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(root, []);
  return out;
}

async function shapedProgram(): Promise<Command> {
  const program = await buildProgram(['node', 'dasvc']);
  shapeHelp(program);
  return program;
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe("every command's --help (SPEC §3)", () => {
  it('shows one to three examples and the global flags', async () => {
    const commands = commandsOf(await shapedProgram());
    expect(commands.length).toBeGreaterThan(15);
    for (const [path, command] of commands) {
      const help = helpOf(command);
      const examples =
        help.split('\nExamples:\n')[1]?.split('\n\n')[0]?.trimEnd().split('\n') ?? [];
      expect(examples.length, `dasvc ${path} --help`).toBeGreaterThanOrEqual(1);
      expect(examples.length, `dasvc ${path} --help`).toBeLessThanOrEqual(3);
      for (const line of examples) expect(line).toMatch(/^ {2}\$ .*dasvc/);
      for (const flag of ['--profile', '--json', '--verbose', '--no-color'])
        expect(help, `dasvc ${path} --help`).toContain(flag);
    }
  });

  it('examples name real commands with flags they accept', async () => {
    const root = await shapedProgram();
    for (const [path] of commandsOf(root)) {
      for (const example of examplesOf(path)) {
        // A `$(dasvc …)` substitution is a value, unless the example is about that very command.
        const outside = example.replace(/"?\$\([^)]*\)"?/g, 'value');
        const typed = outside.includes('dasvc ') ? outside : example;
        const words = typed
          .slice(typed.indexOf('dasvc ') + 6)
          .split(' ')
          .map((w) => w.replace(/[)"']+$/, ''));
        let command = root;
        const accepted = new Set(root.options.map((o) => o.long));
        for (const word of words) {
          const sub = command.commands.find((c) => c.name() === word);
          if (sub) {
            command = sub;
            for (const o of sub.options) accepted.add(o.long);
          } else if (word.startsWith('--')) expect(accepted, example).toContain(word);
        }
        // The example ends at the command it documents, or at one of its subcommands.
        const commandPath = commandsOf(root).find(([, c]) => c === command)![0];
        expect(commandPath.startsWith(path), example).toBe(true);
      }
    }
  });

  it('leaves out the endpoints a command does not call, and still accepts them', async () => {
    const root = await shapedProgram();
    const at = (path: string) => commandsOf(root).find(([p]) => p === path)![1];
    const rpc = helpOf(at('rpc'));
    for (const flag of ['--authorize-url', '--token-url', '--revoke-url'])
      expect(rpc).not.toContain(flag);
    for (const flag of ['--base-url', '--api-url', '--refresh-url', '--params', '--token'])
      expect(rpc).toContain(flag);
    expect(helpOf(at('token revoke'))).not.toContain('--api-url');
    expect(helpOf(at('token revoke'))).toContain('--revoke-url');
    expect(helpOf(at('logout'))).not.toContain('--token-url');
    expect(helpOf(at('login'))).toContain('--revoke-url');
    expect(at('rpc').options.map((o) => o.long)).toContain('--authorize-url');
  });
});
