import { describe, expect, it } from 'vitest';
import { buildProgram, commandNameIn } from '../../src/cli/program.js';

const ALL = [
  'login',
  'logout',
  'token',
  'rpc',
  'mock',
  'check',
  'types',
  'demo',
  'profile',
  'init',
  'completion',
];
const argv = (...args: string[]) => ['node', 'dasvc', ...args];

describe('the program declares only what the invocation needs (start-up speed)', () => {
  it('finds the command name after the global options', () => {
    expect(commandNameIn(argv('rpc', 'crm', 'contacts.list'))).toBe('rpc');
    expect(commandNameIn(argv('--json', '--profile', 'rpc', 'token', 'status'))).toBe('token');
    expect(commandNameIn(argv('--profile=x', '--no-color', 'mock'))).toBe('mock');
    expect(commandNameIn(argv('--help'))).toBeUndefined();
    expect(commandNameIn(argv('help', 'rpc'))).toBeUndefined();
    expect(commandNameIn(argv('frobnicate'))).toBeUndefined();
    expect(commandNameIn(argv('constructor'))).toBeUndefined();
    expect(commandNameIn(argv())).toBeUndefined();
  });

  it('declares one command when argv names it, all of them otherwise', async () => {
    const names = async (...args: string[]) =>
      (await buildProgram(argv(...args))).commands.map((c) => c.name());
    expect(await names('rpc', 'crm', 'contacts.list')).toEqual(['rpc']);
    expect(await names('--json', 'token', 'status')).toEqual(['token']);
    expect(await names('mock', '--port', '0')).toEqual(['mock']);
    expect(await names('types', '--out', 'api.d.ts')).toEqual(['types']);
    expect(await names()).toEqual(ALL);
    expect(await names('--help')).toEqual(ALL);
    expect(await names('frobnicate')).toEqual(ALL);
    expect(await names('completion', 'bash')).toEqual(ALL);
  });
});
