import { SETTINGS } from '../../../client/settings.js';
import { ExitCode } from '../../../errors.js';

/** Notes on settings that the settings table does not say by itself. */
const SETTING_NOTES: Partial<Record<keyof typeof SETTINGS, string>> = {
  baseUrl: 'the installation; the endpoints default to paths under it',
  clientSecret: 'never printed; masked in every trace',
  scope: 'instance IDs separated by spaces: "crm wiki"',
  profile: 'the profile to use (default: the one `dasvc profile use` chose, else "default")',
  token: 'an access token to use as it is, without the stored profile (CI)',
  params: 'query (default) or body: where the OAuth endpoints read their parameters',
  apiUrl: 'a template with {scope}',
};

/** Variables that are not settings of a profile. */
const OTHER_VARIABLES: [string, string][] = [
  ['DASVC_CONFIG_DIR', 'the folder of the config file (config.json) and its lock'],
  ['DASVC_HTTP_TIMEOUT', 'time limit of one HTTP exchange: seconds or a duration (90s, 2m)'],
  ['DASVC_BROWSER', 'a command to open the authorization URL with, given the URL as argument'],
  ['BROWSER', 'the same, read when DASVC_BROWSER is not set'],
  ['HTTP_PROXY, HTTPS_PROXY', 'send requests through this proxy'],
  ['NO_PROXY', 'hosts reached directly, not through the proxy'],
  ['NO_COLOR', 'no colour in messages (as --no-color)'],
  ['FORCE_COLOR', 'colour even when the output is not a terminal'],
  ['CI', 'set: never prompt, even on a terminal'],
];

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`).join('\n');
}

function environment(): string {
  const settings = Object.values(SETTINGS).map((setting): [string, string] => [
    setting.env,
    `${setting.label} (${setting.flag})${
      SETTING_NOTES[setting.key as keyof typeof SETTINGS]
        ? `: ${SETTING_NOTES[setting.key as keyof typeof SETTINGS]}`
        : ''
    }`,
  ]);
  return `Environment variables

A setting comes from its flag, else its variable, else the active profile, else a question (on a
terminal only), else the command stops and names the flag and the variable.

Settings:
${table(settings)}

Other variables:
${table(OTHER_VARIABLES)}

The config folder (DASVC_CONFIG_DIR when set):
  Linux    $XDG_CONFIG_HOME/dasvc-nodejs, else ~/.config/dasvc-nodejs
  macOS    ~/Library/Preferences/dasvc-nodejs
  Windows  %APPDATA%\\dasvc-nodejs\\Config

A profile's tokens and client secret are sent only to the installation they were obtained from:
a base URL or endpoint from a flag or variable that differs from the profile's stops the command.
`;
}

function exitCodes(): string {
  const rows: [string, string][] = [
    [String(ExitCode.ok), 'success'],
    [
      String(ExitCode.service),
      'the service answered with an error: a JSON-RPC error, an OAuth error that is not about authentication, HTTP 5xx',
    ],
    [
      String(ExitCode.usage),
      'usage or configuration: a bad flag, a missing setting, an unreadable params or config file',
    ],
    [
      String(ExitCode.auth),
      'authentication: not logged in, expired and not refreshable, revoked, invalid_grant, invalid_client, HTTP 401/403',
    ],
    [
      String(ExitCode.network),
      'network: connection refused, DNS, TLS, timeout, an answer that is not the JSON expected',
    ],
    [String(ExitCode.interrupted), 'interrupted (Ctrl-C)'],
    ['143', 'stopped by SIGTERM'],
  ];
  return `Exit codes

${table(rows)}

With --json, a failure is also one document on stdout:
  {"error":{"code":"<snake_case>","exitCode":N,"message":"…","hint":"…","rpc":{…}}}
`;
}

/** The help topics of `dasvc help <topic>`, as gh has them. */
export const HELP_TOPICS: Record<string, () => string> = {
  environment: environment,
  'exit-codes': exitCodes,
};
