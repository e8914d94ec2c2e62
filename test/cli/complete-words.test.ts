import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bashReplies,
  dequoteBash,
  quoteForBash,
} from '../../src/cli/commands/completion/bash-words.js';
import { outputLines, parseCompleteRequest } from '../../src/cli/commands/completion/complete.js';
import {
  isPlausibleName,
  isPlausibleParamName,
  isPlausibleWord,
} from '../../src/cli/commands/completion/plausible-words.js';
import { storeSources } from '../../src/cli/commands/completion/completion-sources.js';
import {
  cacheFolder,
  makeCacheFolder,
  METHODS_TTL_MS,
  refreshLock,
  storeScope,
  type CachedScope,
} from '../../src/cli/commands/completion/method-cache.js';
import { methodsOf } from '../../src/rpc/discover.js';
import { scratchDir } from '../helpers/scratch.js';
import {
  completesFiles,
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

const PARAMS: Record<string, string[]> = { 'crm contacts.get': ['id', 'fields'] };

/** The user's setup as plain values; `asked` records what the instance was asked for. */
function setup() {
  const asked: { scope: string; profile: string | undefined }[] = [];
  const sources: CompletionSources = {
    profiles: () => Object.keys(PROFILES),
    scopes: (profile) => (PROFILES[profile ?? 'default'] ?? '').split(' ').filter(Boolean),
    methods: (scope: string, line: CompletedLine) => {
      asked.push({ scope, profile: line.options.get('--profile') });
      return METHODS[scope] ?? [];
    },
    params: (scope: string, method: string) => PARAMS[`${scope} ${method}`] ?? [],
    users: (fixtures: string | undefined) => (fixtures === 'mine' ? ['carol'] : ['alice', 'bob']),
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

  it('mock --auto-approve: the users of the fixtures the line names, else the default ones', async () => {
    expect(await complete('mock', '--auto-approve', '')).toEqual(['alice', 'bob']);
    expect(await complete('mock', '--fixtures', 'mine', '--auto-approve', '')).toEqual(['carol']);
    expect(await complete('mock', '--auto-approve=a')).toEqual(['--auto-approve=alice']);
  });

  it('the users come from users.json: the default fixtures, or the folder named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-users-'));
    try {
      writeFileSync(
        join(dir, 'users.json'),
        JSON.stringify({ $schema: 'x', carol: {}, 'bad name': {}, '--flag': {} }),
      );
      const sources = storeSources({
        env: { DASVC_CONFIG_DIR: dir, PWD: dir },
        now: Date.now,
        refill: () => undefined,
      });
      expect(sources.users(undefined)).toEqual(['alice', 'bob']);
      expect(sources.users('.')).toEqual(['carol']);
      expect(sources.users(join(dir, 'nowhere'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("shells, profile names, the profile's scopes after rpc and types and for --scope, a scope's methods", async () => {
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('profile', 'use', '')).toEqual(['default', 'work']);
    expect(await complete('rpc', '')).toEqual(['crm', 'wiki']);
    expect(await complete('--profile', 'work', 'rpc', '')).toEqual(['hr']);
    expect(await complete('rpc', 'crm', 'contacts.')).toEqual(['contacts.list', 'contacts.get']);
    expect(await complete('rpc', 'crm', 'contacts.list', '')).toEqual([]);
    expect(await complete('types', '')).toEqual(['crm', 'wiki']);
    expect(await complete('types', 'crm', '')).toEqual(['wiki']);
    expect(await complete('--profile', 'work', 'types', '')).toEqual(['hr']);
    expect(await complete('types', '--from', 'contract.json', '')).toEqual([]);
    // --scope's value: the scopes of the profile named, as after rpc.
    expect(await complete('login', '--scope', '')).toEqual(['crm', 'wiki']);
    expect(await complete('--profile', 'work', 'check', '--scope', '')).toEqual(['hr']);
    expect(await complete('login', '--scope=w')).toEqual(['--scope=wiki']);
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

describe('param names after the method (from the same rpc.discover document)', () => {
  it('offers name= for the params not given yet, none after a JSON argument or -', async () => {
    expect(await complete('rpc', 'crm', 'contacts.get', '')).toEqual(['id=', 'fields=']);
    expect(await complete('rpc', 'crm', 'contacts.get', 'f')).toEqual(['fields=']);
    expect(await complete('rpc', 'crm', 'contacts.get', 'id=1', '')).toEqual(['fields=']);
    // After `id=` comes its value, not the name again.
    expect(await complete('rpc', 'crm', 'contacts.get', 'id=')).toEqual([]);
    expect(await complete('rpc', 'crm', 'contacts.get', 'id:=1', '')).toEqual(['fields=']);
    expect(await complete('rpc', 'crm', 'contacts.get', '{"id":1}', '')).toEqual([]);
    expect(await complete('rpc', 'crm', 'contacts.get', '-', '')).toEqual([]);
    expect(await complete('rpc', 'crm', 'contacts.list', '')).toEqual([]);
    expect(await complete('rpc', 'crm', '--batch', 'calls.json', '')).toEqual([]);
  });
});

describe('methodsOf: methods and their param names from an OpenRPC document', () => {
  it('reads params in order, by $ref too, and says which take them by position', () => {
    const document = {
      openrpc: '1.2.6',
      methods: [
        { name: 'a', params: [{ name: 'x' }, { $ref: '#/components/contentDescriptors/Y' }] },
        { name: 'b', paramStructure: 'by-position', params: [{ name: 'p' }] },
        { name: '', params: [] },
        { $ref: '#/components/methods/c' },
        { name: 'd', params: [{ $ref: '#/components/contentDescriptors/missing' }, 7] },
      ],
      components: { contentDescriptors: { Y: { name: 'y', schema: {} } } },
    };
    expect(methodsOf(document)).toEqual([
      { name: 'a', params: ['x', 'y'], byPosition: false },
      { name: 'b', params: ['p'], byPosition: true },
      { name: 'd', params: [], byPosition: false },
    ]);
    expect(methodsOf({ methods: 'no' })).toEqual([]);
    expect(methodsOf(null)).toEqual([]);
  });
});

describe('what may be offered at all', () => {
  it('no whitespace, control or invisible characters; names never start with -', () => {
    for (const word of ['contacts.get', 'a$(b)', "it's", 'naïve', 'x|y', '--flag']) {
      expect(isPlausibleWord(word), word).toBe(true);
    }
    for (const word of ['', 'a b', 'a\tb', 'a\nb', 'a\rb', 'a\x1b[31m', 'a\u202eb', 'a\u00a0b']) {
      expect(isPlausibleWord(word), JSON.stringify(word)).toBe(false);
    }
    expect(isPlausibleWord('x'.repeat(257))).toBe(false);
    expect(isPlausibleName('--api-url=http://127.0.0.1:1/{scope}')).toBe(false);
    expect(isPlausibleName('-')).toBe(false);
    expect(isPlausibleName('contacts.get')).toBe(true);
    // Param names that the key=value grammar would read as something else.
    for (const name of ['a=b', 'a:', '{a', '[a', '-a'])
      expect(isPlausibleParamName(name)).toBe(false);
    expect(isPlausibleParamName('a:b')).toBe(true);
  });
});

/** Runs bash (non-interactive, history expansion on) on `script`; its stdout. */
function bashOutput(script: string): string {
  return execFileSync('/bin/bash', ['--norc', '--noprofile', '-s'], {
    input: `set -o history -o histexpand\n${script}`,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
}

describe('bash words: typed words unquoted, offered words quoted', () => {
  it('dequotes as bash does, and says which quote is left open', () => {
    expect(dequoteBash(`a\\$b'c d'"e\\"f\\g"`)).toEqual({ value: 'a$bc de"f\\g' });
    expect(dequoteBash(`--profile='w`)).toEqual({
      value: '--profile=w',
      open: { quote: "'", at: 10 },
    });
    expect(dequoteBash(`"a\\`)).toEqual({ value: 'a\\', open: { quote: '"', at: 0 } });
    expect(dequoteBash('a\\')).toEqual({ value: 'a' });
  });

  it('replies with the part readline replaces, quoted for where it goes', () => {
    // The candidates extend the word typed (completeWords keeps only those).
    expect(bashReplies(['q$(x)', 'q;y'], 'q', 'q')).toEqual(['q\\$\\(x\\)', 'q\\;y']);
    // After an open quote, readline replaces what follows it; the reply closes the quote.
    expect(bashReplies(["o'k"], "'o", "'o")).toEqual([`o'\\''k'`]);
    expect(bashReplies(['q$(x)', 'q!'], '"q', '"q')).toEqual(['q\\$(x)"', `q"'!'""`]);
    // bash cut `--hint=ac` at "=": readline replaces "ac" alone.
    expect(bashReplies(['--hint=access_token'], '--hint=ac', 'ac')).toEqual(['access_token']);
    expect(bashReplies(['--profile=work'], "--profile='w", "'w")).toEqual(["work'"]);
  });

  it('bash reads every quoted word back as itself, in each quoting context', () => {
    const words = fc.sample(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter(isPlausibleWord),
      { numRuns: 300, seed: 20261128 },
    );
    words.push('a!!b', "'", '"', '\\', '$(x)', '`x`', '{a,b}', '~x', '#x', '*', '!');
    const contexts = ['', "'", '"'] as const;
    const lines = words.flatMap((word) =>
      contexts.map((open) => `printf '%s\\0' ${open}${quoteForBash(word, open || undefined)}`),
    );
    const read = bashOutput(lines.join('\n')).split('\0').slice(0, -1);
    expect(read).toEqual(words.flatMap((word) => contexts.map(() => word)));
    for (const word of words) expect(dequoteBash(quoteForBash(word)).value).toBe(word);
  });
});

describe('what __complete prints for each shell', () => {
  const candidates = [
    { value: 'contacts.get', description: 'a\tcontact' },
    { value: 'q$(touch${IFS}x)' },
    { value: 'bad name' },
  ];
  it('bash: quoted replies; zsh and fish: words and descriptions; no shell: only plain words', () => {
    const request = (shell?: 'bash' | 'zsh' | 'fish') => ({
      ...(shell ? { shell } : {}),
      word: '',
      words: ['rpc', 'crm', ''],
    });
    expect(outputLines(candidates, request('bash'))).toEqual([
      'contacts.get',
      'q\\$\\(touch\\$\\{IFS\\}x\\)',
    ]);
    for (const shell of ['zsh', 'fish'] as const) {
      expect(outputLines(candidates, request(shell))).toEqual([
        'contacts.get\ta contact',
        'q$(touch${IFS}x)',
      ]);
    }
    expect(outputLines(candidates, request())).toEqual(['contacts.get\ta contact']);
  });

  it('reads the request of each script, and of a script that names no shell', () => {
    expect(parseCompleteRequest(['--shell=bash', '--word=ac', '--', 'x', '--hint=ac'])).toEqual({
      shell: 'bash',
      word: 'ac',
      words: ['x', '--hint=ac'],
    });
    expect(parseCompleteRequest(['--', 'rpc', ''])).toEqual({ word: '', words: ['rpc', ''] });
    expect(parseCompleteRequest(['--shell=tcsh', '--', 'rpc'])).toEqual({
      word: 'rpc',
      words: ['rpc'],
    });
    // A script that reads the `# files` line says so.
    expect(parseCompleteRequest(['--shell=zsh', '--files', '--', 'rpc', ''])).toEqual({
      shell: 'zsh',
      files: true,
      word: '',
      words: ['rpc', ''],
    });
  });

  it("names a file's word, where the shell's own file names answer: file flags and key=@file", async () => {
    const root = await buildProgram(['node', 'dasvc']);
    const files = (...words: string[]) => completesFiles(root, words);
    expect(files('rpc', 'crm', '--batch', '')).toBe(true);
    expect(files('rpc', 'crm', '--batch=ca')).toBe(true);
    expect(files('mock', '--fixtures', './f')).toBe(true);
    expect(files('types', '--out', '')).toBe(true);
    expect(files('rpc', 'crm', 'contacts.get', 'id:=@')).toBe(true);
    // A method, a param name, a URL, a command without arguments: no file names.
    expect(files('rpc', 'crm', '')).toBe(false);
    expect(files('rpc', 'crm', 'contacts.get', '')).toBe(false);
    expect(files('login', '--base-url', '')).toBe(false);
    expect(files('check', '')).toBe(false);
    // key=@file is rpc's: another command's word is no param.
    expect(files('types', 'id=@')).toBe(false);
    // After --, a word is an argument, not a flag's value.
    expect(files('rpc', 'crm', '--', '--batch=ca')).toBe(false);
    expect(files('')).toBe(false);
  });
});

describe('storeSources: methods from the cache, a refill started when it is missing or stale', () => {
  const API = 'http://127.0.0.1:9/webservice/json/{scope}';
  const NOW = 1_800_000_000_000;

  /** A config dir with one logged-in profile (tokens in the file) and, when given, its cache. */
  function setupDir(cache?: Record<string, unknown>, expiresAt = NOW + 60_000) {
    const dir = scratchDir('dasvc-sources-');
    const profile = {
      baseUrl: 'http://127.0.0.1:9',
      clientId: 'demo-client',
      scope: 'crm wiki',
      endpoints: { api: API },
      secrets: 'file',
      tokens: { accessToken: 'a'.repeat(20), refreshToken: null, expiresAt, obtainedAt: NOW },
    };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }));
    if (cache) {
      makeCacheFolder(cacheFolder({ DASVC_CONFIG_DIR: dir }));
      for (const [scope, entry] of Object.entries(cache))
        storeScope(cacheFolder({ DASVC_CONFIG_DIR: dir }), 'default', scope, entry as CachedScope);
    }
    const refills: [string, string][] = [];
    const sources = (env: Record<string, string> = {}) =>
      storeSources({
        env: { DASVC_CONFIG_DIR: dir, ...env },
        now: () => NOW,
        refill: (profileName, scope) => refills.push([profileName, scope]),
      });
    return { dir, refills, sources };
  }
  const line = (options: [string, string][] = []): CompletedLine => ({
    path: ['rpc'],
    options: new Map(options),
    positional: [],
  });
  const crm = (fetchedAt: number, url = API.replace('{scope}', 'crm')) => ({
    url,
    fetchedAt,
    methods: [
      { name: 'contacts.get', params: ['id'], byPosition: false },
      { name: 'q$(x)', params: ['a b', 'ok'], byPosition: false },
      { name: 'bad name', params: [], byPosition: false },
    ],
  });

  it('a miss offers nothing and starts one refill; a fresh entry answers alone', () => {
    const miss = setupDir();
    expect(miss.sources().methods('crm', line())).toEqual([]);
    expect(miss.refills).toEqual([['default', 'crm']]);

    const fresh = setupDir({ crm: crm(NOW - 1000) });
    expect(fresh.sources().methods('crm', line())).toEqual(['contacts.get', 'q$(x)']);
    expect(fresh.sources().params('crm', 'q$(x)', line())).toEqual(['ok']);
    expect(fresh.refills).toEqual([]);
  });

  it('a stale entry is offered and refilled; one from another URL is neither offered nor kept', () => {
    const stale = setupDir({ crm: crm(NOW - METHODS_TTL_MS - 1) });
    expect(stale.sources().methods('crm', line())).toEqual(['contacts.get', 'q$(x)']);
    expect(stale.refills).toEqual([['default', 'crm']]);

    const moved = setupDir({ crm: crm(NOW, 'http://127.0.0.1:8/webservice/json/crm') });
    expect(moved.sources().methods('crm', line())).toEqual([]);
    expect(moved.refills).toEqual([['default', 'crm']]);
  });

  it('a line that calls another installation gets no names and starts nothing', () => {
    const { sources, refills } = setupDir({ crm: crm(NOW - METHODS_TTL_MS - 1) });
    expect(sources().methods('crm', line([['--base-url', 'http://127.0.0.1:7']]))).toEqual([]);
    expect(sources({ DASVC_API_URL: 'http://127.0.0.1:7/{scope}' }).methods('crm', line())).toEqual(
      [],
    );
    expect(refills).toEqual([]);
  });

  it('scopes and profile names from the config file: only names that can be one word', () => {
    const { dir, sources } = setupDir();
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      profiles: { default: { scope: string } };
    };
    data.profiles.default.scope = 'crm w$(x) -flag a\u001bb';
    writeFileSync(file, JSON.stringify(data));
    expect(sources().scopes(undefined)).toEqual(['crm', 'w$(x)']);
    expect(sources().profiles()).toEqual(['default']);
  });

  it('no refill without a usable token, nor while a refresher holds the lock', () => {
    const expired = setupDir(undefined, NOW - 1);
    expect(expired.sources().methods('crm', line())).toEqual([]);
    expect(expired.refills).toEqual([]);

    const busy = setupDir();
    const folder = cacheFolder({ DASVC_CONFIG_DIR: busy.dir });
    makeCacheFolder(folder);
    mkdirSync(refreshLock(folder, 'default'));
    const running = storeSources({
      env: { DASVC_CONFIG_DIR: busy.dir },
      now: Date.now,
      refill: (profileName, scope) => busy.refills.push([profileName, scope]),
    });
    expect(running.methods('crm', line())).toEqual([]);
    expect(busy.refills).toEqual([]);
  });
});
