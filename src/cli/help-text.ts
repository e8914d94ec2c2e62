import type { Command } from 'commander';
import { terminalText } from '../util/printable.js';

/**
 * One to three runnable examples per command path (SPEC §3), each as typed at a shell; they run as
 * they are against `dasvc mock` (demo-client / demo-secret) once logged in, the profile `work` by
 * login's second example (cli-help.test.ts runs them).
 */
const EXAMPLES: Record<string, string[]> = {
  '': ['dasvc demo', 'dasvc mock', 'dasvc rpc crm contacts.list'],
  login: [
    'dasvc login --base-url http://127.0.0.1:8080 --client-id demo-client --client-secret demo-secret --scope "crm wiki"',
    'dasvc login --profile work --base-url http://127.0.0.1:8080 --client-id demo-client --client-secret demo-secret --scope crm --no-browser',
  ],
  logout: ['dasvc logout', 'dasvc logout --forget'],
  token: ['dasvc token status', 'dasvc token refresh'],
  'token status': ['dasvc token status', 'dasvc token status --json'],
  'token print': [
    'dasvc token print',
    `curl -H "Authorization: Bearer $(dasvc token print)" -d '{"jsonrpc":"2.0","method":"contacts.list","id":1}' http://127.0.0.1:8080/webservice/json/crm`,
  ],
  'token refresh': ['dasvc token refresh', 'dasvc --profile work token refresh'],
  'token revoke': [
    'dasvc token revoke',
    'dasvc token revoke --all',
    'DASVC_TOKEN="$(dasvc token print)" dasvc token revoke --hint access_token',
  ],
  rpc: [
    'dasvc rpc crm contacts.list',
    'dasvc rpc crm contacts.get id:=1',
    `echo '[{"jsonrpc":"2.0","method":"contacts.list","id":1}]' | dasvc rpc crm --batch -`,
  ],
  types: [
    'dasvc types --out src/dasvc-api.d.ts',
    'dasvc types --from ./recorded --out src/dasvc-api.d.ts',
    'dasvc types crm wiki --check src/dasvc-api.d.ts',
  ],
  profile: ['dasvc profile list', 'dasvc profile use work'],
  'profile list': ['dasvc profile list', 'dasvc profile list --json'],
  'profile show': ['dasvc profile show', 'dasvc profile show work'],
  'profile use': ['dasvc profile use work'],
  'profile remove': ['dasvc profile remove work'],
  init: ['dasvc init'],
  completion: [
    "echo 'source <(dasvc completion bash)' >> ~/.bashrc",
    "echo 'source <(dasvc completion zsh)' >> ~/.zshrc",
    'dasvc completion fish > ~/.config/fish/completions/dasvc.fish',
  ],
  mock: [
    'dasvc mock --port 0 --auto-approve alice',
    'dasvc mock --proxy https://das.example.com --record ./recorded --scrub email',
    'dasvc mock --fixtures ./recorded',
  ],
  demo: ['dasvc demo', 'dasvc demo --browser'],
  check: [
    'dasvc check',
    'dasvc check --only refresh.,revoke. --max-wait 2m --save-quirks quirks.json',
    'dasvc check --junit check.xml --json > check.json',
  ],
};

/** The end of the top-level help: where to learn more. */
const LEARN_MORE = `
Learn more:
  dasvc <command> --help     a command's flags and examples
  dasvc help environment     every variable, and where the config folder is
  dasvc help exit-codes      what each exit code means
  docs/ in the dasvc repository: guides, reference, and the service's interface
`;

/**
 * The connection flags (SPEC §2) a command accepts but never reads, left out of its help: the
 * endpoints it does not call. They stay accepted, so that a script passing one set of flags to
 * every command keeps working.
 */
const UNUSED_FLAGS: Record<string, string[]> = {
  logout: ['--authorize-url', '--token-url', '--refresh-url', '--api-url'],
  'token print': ['--authorize-url', '--token-url', '--revoke-url', '--api-url'],
  'token refresh': ['--authorize-url', '--token-url', '--revoke-url', '--api-url'],
  'token revoke': ['--authorize-url', '--token-url', '--refresh-url', '--api-url'],
  rpc: ['--authorize-url', '--token-url', '--revoke-url'],
  types: ['--authorize-url', '--token-url', '--revoke-url'],
};

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The examples of one command path (SPEC §3), for tests and the help text alike. */
export function examplesOf(path: string): string[] {
  return EXAMPLES[path] ?? [];
}

/**
 * Every command's help and errors as SPEC §3 wants them: its examples and the global flags in its
 * `--help`, not the flags it does not read; usage errors in the one style of dasvc (`dasvc: <what>`, then `hint: <what to do>`).
 * `usageHint` hears the hint of each usage error said, for `--json` to carry it too.
 */
export function shapeHelp(command: Command, usageHint?: (hint: string) => void): void {
  const path = pathOf(command);
  command.configureHelp({ showGlobalOptions: true, sortSubcommands: false });
  const unused = new Set(UNUSED_FLAGS[path] ?? []);
  for (const option of command.options) if (unused.has(option.long ?? '')) option.hideHelp();
  const examples = examplesOf(path);
  if (examples.length > 0)
    command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  if (path === '') command.addHelpText('after', LEARN_MORE);
  command.showHelpAfterError(false);
  const hint = `dasvc ${path ? `${path} ` : ''}--help`;
  command.configureOutput({
    outputError: (text, write) => {
      write(`dasvc: ${terminalText(text.replace(/^error: /, '').trimEnd())}\nhint: ${hint}\n`);
      usageHint?.(hint);
    },
  });
  // Its help shown for a usage error (`dasvc token`, no command named): the same hint.
  command.on('afterHelp', (context: { error: boolean }) => {
    if (context.error) usageHint?.(hint);
  });
  for (const sub of command.commands) shapeHelp(sub, usageHint);
}
