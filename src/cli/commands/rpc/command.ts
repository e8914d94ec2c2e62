import { Command } from 'commander';
import { addServiceOptions } from '../../service-options.js';
import type { RpcOptions } from './run.js';

/** `dasvc rpc <scope> <method> [params...]` (SPEC §3). */
export function rpcCommand(): Command {
  const command = new Command('rpc')
    .description('send a JSON-RPC 2.0 call to {base_url}/webservice/json/<scope>')
    .argument('<scope>', 'instance ID, e.g. crm')
    .argument('[method]', 'method name, e.g. contacts.list')
    .argument(
      '[params...]',
      'one JSON object/array, key=value, key:=json, key=@file, key:=@file, or - for stdin',
    )
    .option('--id <n>', 'request id (default 1)')
    .option('--notify', 'send a notification (no id, no answer)')
    .option('--raw', 'print the whole response object')
    .option('--batch <file>', 'send the JSON array in <file> (or - for stdin) as a batch')
    .option('--token <token>', 'use this access token, skipping the store (env DASVC_TOKEN)');
  addServiceOptions(command).action(
    async (
      scope: string,
      method: string | undefined,
      params: string[],
      flags: Omit<RpcOptions, 'scope' | 'method' | 'paramItems'>,
      cmd: Command,
    ) => {
      const [{ run }, { createDeps }] = await Promise.all([
        import('./run.js'),
        import('../../context.js'),
      ]);
      await run({ ...flags, scope, method, paramItems: params }, await createDeps(cmd));
    },
  );
  return command;
}
