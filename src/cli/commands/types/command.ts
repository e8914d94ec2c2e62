import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { TypesOptions } from './run.js';

/** `dasvc types [scope...]` (SPEC §10): flags only; the declarations are made in src/typegen/. */
export function typesCommand(): Command {
  const command = new Command('types')
    .description(
      "write TypeScript declarations of the instances' JSON-RPC methods, for dasvc<Api>()",
    )
    .argument(
      '[scope...]',
      "instance IDs (default: the profile's scope, or every instance of --from)",
    )
    .option(
      '--from <path>',
      'read the contract from an OpenRPC document, a fixtures folder or a --record folder',
    )
    .option('--out <file>', 'write the declarations to <file> (default: stdout)')
    .option(
      '--check <file>',
      'exit 1 when <file> differs from the contract now, saying what changed',
    )
    .option('--token <token>', 'use this access token, skipping the store (env DASVC_TOKEN)');
  addServiceOptions(command).action(
    async (scopes: string[], flags: Omit<TypesOptions, 'scopes'>, cmd: Command) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run({ ...flags, scopes }, await createDeps(cmd));
    },
  );
  return command;
}
