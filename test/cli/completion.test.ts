// SPEC §3 `dasvc completion bash|zsh|fish`, each script run in its own shell: on a pseudo-terminal
// (util-linux `script`) with TAB typed into the shell's line editor, and for fish also through its
// own `complete -C`. The shells find `dasvc` on PATH, as an installed one would be found. Method
// names come from a cache that a first TAB has a background process fill: each test waits for
// that file (its own event, not a time), then TABs again.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheFolder,
  makeCacheFolder,
  readMethodCache,
  refreshLock,
} from '../../src/cli/commands/completion/method-cache.js';
import { withFileLock } from '../../src/store/file-lock.js';
import { startMockServer, type MockServer } from '../../src/mock/index.js';
import {
  BIN,
  browserEnv,
  freshConfigDir,
  journalEntries,
  loginArgs,
  runCli,
  runCliProcess,
} from '../helpers/cli.js';
import { FIXTURES } from '../helpers/mock-client.js';
import { scratchDir } from '../helpers/scratch.js';
import { secretServiceTestsRun, useSecretService } from '../helpers/secret-service.js';
import { onTerminal, SCRIPT, type Terminal } from '../helpers/terminal.js';

const SHELLS = { bash: '/bin/bash', zsh: '/usr/bin/zsh', fish: '/usr/bin/fish' };
type Shell = keyof typeof SHELLS;

/** Method names that are shell syntax: each must come back as one word, and run nothing. */
function syntaxNames(marker: string): string[] {
  return [
    `qa$(touch\${IFS}${marker})`,
    `qb\`touch\${IFS}${marker}\``,
    `qc;touch\${IFS}${marker}`,
    `qd|touch\${IFS}${marker}`,
    `qe&touch\${IFS}${marker}`,
    `qf>${marker}`,
    `qg<${marker}`,
    `qh'${marker}'`,
    `qi"${marker}"`,
    `qj\\${marker}`,
    'qk!!',
    'ql{a,b}*~#',
  ];
}

/**
 * The names each shell completes on its terminal. zsh and fish quote what they insert themselves:
 * every name. bash inserts the words `__complete` quoted (quoteForBash): how bash reads each of
 * those back, history expansion on, is proven with a real bash for every character here
 * (complete-words.test.ts); on the terminal, a command substitution, a backtick, a `;`, a quote,
 * a history expansion and a brace expansion show that readline inserts them as they are.
 */
function namesTabbed(shell: Shell): string[] {
  const names = syntaxNames(marker);
  return shell === 'bash' ? names.filter((name) => /^q[abchkl]/.test(name)) : names;
}

/** Names no shell word can hold: never offered. */
function unfitNames(marker: string): string[] {
  return [
    `zbad --api-url=http://127.0.0.1:9/{scope}`,
    `zbad\t${marker}`,
    `zbad\ntouch ${marker}`,
    'zbad\x1b]0;title\x07',
    'zbad\u202e',
    '--api-url=http://127.0.0.1:9/{scope}',
  ];
}

/** The param names of the method `qp`: the first is shell syntax, the others are no param name. */
function paramNames(marker: string): string[] {
  return [`x$(touch\${IFS}${marker})`, 'a b', 'k=v', '-f'];
}

/** The default fixtures plus an instance `odd` (alice's) whose method and param names are hostile. */
function oddFixtures(marker: string): string {
  const dir = scratchDir('dasvc-odd-fixtures-');
  cpSync(FIXTURES, dir, { recursive: true });
  const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8')) as {
    alice: { instances: string[] };
  };
  users.alice.instances.push('odd');
  writeFileSync(join(dir, 'users.json'), JSON.stringify(users));
  const method = (name: string, params: string[] = []) => ({
    name,
    params: params.map((param) => ({ name: param, schema: {} })),
    result: { name: 'result', schema: {} },
  });
  const document = {
    openrpc: '1.2.6',
    info: { title: 'odd', version: '1' },
    methods: [
      ...[...syntaxNames(marker), ...unfitNames(marker)].map((name) => method(name)),
      method('plain'),
      method('qp', paramNames(marker)),
    ],
  };
  writeFileSync(join(dir, 'instances', 'odd.openrpc.json'), JSON.stringify(document));
  return dir;
}

let mock: MockServer;
let marker = '';
let binDir = '';

beforeAll(async () => {
  marker = join(scratchDir('dasvc-marker-'), 'm');
  mock = await startMockServer({
    port: 0,
    autoApprove: 'alice',
    fixtures: oddFixtures(marker),
    log: () => undefined,
  });
  binDir = scratchDir('dasvc-bin-');
  const wrapper = join(binDir, 'dasvc');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(wrapper, 0o755);
});
afterAll(async () => {
  await mock?.close();
});

/** A config dir logged in to the mock as `default` and `work`, with nothing cached yet. */
async function loggedIn(): Promise<string> {
  const dir = freshConfigDir();
  for (const args of [
    loginArgs(mock.url, 'crm wiki odd'),
    ['--profile', 'work', ...loginArgs(mock.url, 'wiki')],
  ]) {
    // In this process (runCli): the shells are what runs as processes here.
    const login = await runCli(args, dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
  }
  return dir;
}

/** Resolves once `check` holds; the test's own time limit bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** Resolves once the profile's cache holds every scope named (the refresher wrote it). */
function cached(dir: string, scopes: string[], profile = 'default'): Promise<void> {
  const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
  return until(() => {
    const cache = readMethodCache(folder, profile);
    return scopes.every((scope) => cache.scopes[scope] !== undefined);
  });
}

/** Resolves once no refresher of the profile holds its lock (it has ended). */
function refresherDone(dir: string, profile = 'default'): Promise<void> {
  return until(() => !existsSync(refreshLock(cacheFolder({ DASVC_CONFIG_DIR: dir }), profile)));
}

function shellEnv(configDir: string): Record<string, string> {
  return {
    PATH: `${binDir}:${process.env.PATH ?? ''}`,
    HOME: binDir,
    TERM: 'xterm',
    CI: '1',
    DASVC_CONFIG_DIR: configDir,
  };
}

/**
 * What each shell must offer after the words typed: one line for each way the words reach
 * `dasvc __complete` (a new empty word, a word begun, a word of the method cache, a param name
 * that takes no space after it). Which candidates each kind of word gets (commands, flags, flag
 * values, profiles, scopes, methods, params) is completeWords' table, proven in-process
 * (complete-words.test.ts): a real shell adds its own way of passing words, not other candidates.
 */
const CASES: [typed: string, offered: string[]][] = [
  ['dasvc token ', ['status', 'print', 'refresh', 'revoke']],
  ['dasvc token revoke --h', ['--hint', '--help']],
  ['dasvc rpc crm contacts.', ['contacts.list', 'contacts.get']],
  ['dasvc rpc wiki pages.list ', ['limit=']],
];

/**
 * Flag values written `--flag=value` (bash splits the word at "=" and must join it again); the
 * profiles and the scopes come from the config file the shell's dasvc reads.
 */
const EQUALS_CASES: [typed: string, offered: string[]][] = [
  ['dasvc token revoke --hint=', ['access_token', 'refresh_token']],
  ['dasvc --profile=w', ['work']],
  // bash also splits at ":": a URL comes in pieces that must be joined as well.
  ['dasvc --base-url=http://127.0.0.1:9 rpc ', ['crm', 'wiki']],
];

/** A shell and a dasvc process per TAB: on two cores shared with other work, more than 30 s may pass. */
const SHELL_TEST = { timeout: 90_000 };

const present = (shell: Shell) =>
  (existsSync(SHELLS[shell]) && existsSync(SCRIPT)) || Boolean(process.env.CI);

/** The prompt of the shells here: one that names no candidate. */
const PROMPT = 'READY> ';

/**
 * Types `keys` (ending with Enter) and resolves with the screen once `text` is printed and the
 * prompt after it: the shell reads keys again in its line editor, so a TAB typed next is a TAB
 * (typed while a command still runs, the terminal's own line editing would take Ctrl-U and TAB).
 */
async function entered(term: Terminal, keys: string, text: string): Promise<string> {
  term.type(keys);
  await until(() => {
    const screen = term.fresh();
    const at = screen.indexOf(text);
    return at >= 0 && screen.includes(PROMPT, at + text.length);
  });
  return term.waitFor([text]);
}

/** A shell on a terminal with the completion script loaded, as a user's rc file sets it up. */
async function shellWithCompletion(shell: Shell, configDir: string): Promise<Terminal> {
  const command = {
    bash: [SHELLS.bash, '--norc', '--noprofile', '-i'],
    zsh: [SHELLS.zsh, '-f', '-i'],
    fish: [SHELLS.fish, '--no-config', '-i'],
  }[shell];
  const term = onTerminal(command, shellEnv(configDir));
  const setup = {
    // Candidates listed at the first TAB, not the second: readline's display only (the script
    // answers each TAB alike), and one dasvc process a TAB.
    bash: `PS1='${PROMPT}'; bind 'set show-all-if-ambiguous on'; source <(dasvc completion bash)`,
    // zsh's completion system first, as a user's .zshrc loads it.
    zsh: `PS1='${PROMPT}'; autoload -Uz compinit && compinit -u -D; source <(dasvc completion zsh)`,
    fish: `function fish_prompt; echo -n '${PROMPT}'; end; dasvc completion fish | source`,
  }[shell];
  await entered(term, `${setup}; echo LOADED''-42\r`, 'LOADED-42');
  return term;
}

/** Clears the line and waits until the shell has dealt with every key typed before. */
function settled(term: Terminal): Promise<string> {
  return entered(term, `\x15echo SETTLED''-1\r`, 'SETTLED-1');
}

/**
 * Types `line`, TAB and `after`, then puts `printf '<%s>\n'` before it all, and runs it with an
 * echo after it: each word as the shell has it, one a line. Resolves with the screen.
 */
function wordsAfterTab(term: Terminal, line: string, after = ''): Promise<string> {
  return entered(term, `${line}\t${after}; echo DONE''-3\x01printf '<%s>\\n' \r`, 'DONE-3');
}

/** Marks the end of one line's candidates in fish's output. */
const FISH_END = '--dasvc-test-end--';

/**
 * fish's own completion engine, asked non-interactively: `complete -C "<line>"` for each line,
 * in one fish that sourced the script once (a fish and a `dasvc completion fish` per line cost
 * ~0.1 s of CPU each). The candidates of each line, in order.
 */
function fishCompletes(lines: string[], configDir: string): Promise<string[][]> {
  const asks = lines.map((line) => `complete -C '${line}'; echo ${FISH_END}`).join('; ');
  const child = spawn(
    SHELLS.fish,
    ['--no-config', '-c', `dasvc completion fish | source; ${asks}`],
    {
      env: shellEnv(configDir),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      const answers = out.split(`${FISH_END}\n`);
      // One answer per line, and nothing after the last marker: a fish that stopped half-way
      // (a script error) fails the test rather than passing with fewer lines asked. Rejected, not
      // thrown: a throw in this handler would be an uncaught error and the test would wait out
      // its time limit.
      if (answers.pop() !== '' || answers.length !== lines.length) {
        reject(new Error(`fish answered ${answers.length} of ${lines.length} lines:\n${out}`));
        return;
      }
      resolve(
        answers.map((answer) =>
          answer
            .split('\n')
            .filter(Boolean)
            .map((l) => l.split('\t')[0]!),
        ),
      );
    });
  });
}

/**
 * What a shell's tests share: a config dir logged in as `default` and `work`, its method cache
 * empty until the first test's first TAB, and one shell on a terminal with the completion loaded,
 * started when a test first asks for it. The shell exits at the end, and the refresher it started
 * has ended by then.
 */
function sharedSession(shell: Shell) {
  let dir: string | undefined;
  let term: Promise<Terminal> | undefined;
  beforeAll(async () => {
    if (present(shell)) dir = await loggedIn();
  });
  afterAll(async () => {
    if (term) {
      const shellTerm = await term;
      shellTerm.type('\x15exit\r');
      expect((await shellTerm.exited).code).toBe(0);
    }
    if (dir) await refresherDone(dir);
  });
  return {
    dir: () => dir!,
    terminal: () => (term ??= shellWithCompletion(shell, dir!)),
  };
}

/**
 * Words typed in the repository's root (the shells' folder): a file's name is completed as one
 * only where the command takes a file; elsewhere a TAB that has no candidate offers nothing.
 */
const FILE_CASES: [typed: string, word: string][] = [
  ['dasvc rpc crm --batch CHANGEL', 'CHANGELOG.md'],
  ['dasvc types --out=CHANGEL', '--out=CHANGELOG.md'],
  ['dasvc rpc crm m id=@CHANGEL', 'id=@CHANGELOG.md'],
  // A folder: its name and a slash, ready for what is in it.
  ['dasvc rpc crm m id:=@doc', 'id:=@docs/'],
  ['dasvc rpc crm CHANGEL', 'CHANGEL'],
  ['dasvc check CHANGEL', 'CHANGEL'],
];

// Missing shells are a failure in CI (.ci/run installs zsh and fish), a skip elsewhere.
describe.each(['bash', 'zsh', 'fish'] as const)('%s completion', (shell) => {
  const session = sharedSession(shell);

  it.skipIf(!present(shell))(
    'a first TAB fills the cache; then commands, flags, values, profiles, scopes, methods, params',
    SHELL_TEST,
    async () => {
      const dir = session.dir();
      // fish is also asked by its own engine (`complete -C`), without a terminal.
      if (shell === 'fish') return fishOffers(dir);
      const term = await session.terminal();
      // The cache is empty: the first TAB offers no method, and starts the refresher.
      term.type(`dasvc rpc crm contacts.\t`);
      expect(await settled(term)).not.toContain('contacts.list');
      await cached(dir, ['crm', 'wiki', 'odd']);
      for (const [typed, offered] of [...CASES, ...EQUALS_CASES]) {
        // Both list the candidates at the first TAB; Ctrl-U clears the line.
        term.type(`${typed}\t`);
        const listed = await term.waitFor(offered);
        for (const word of offered) expect(listed, typed).toContain(word);
        term.type('\x15');
      }
    },
  );

  it.skipIf(!present(shell))(
    "a server's names never become shell syntax: each is one quoted word, those with whitespace or control characters are not offered, nothing runs",
    SHELL_TEST,
    async () => {
      const dir = session.dir();
      const term = await session.terminal();
      // A TAB that starts the refresher, unless the test before has filled the cache.
      term.type(`dasvc rpc odd q\t`);
      await settled(term);
      await cached(dir, ['odd']);
      for (const name of namesTabbed(shell)) {
        // Each name has a prefix of its own: TAB completes it whole.
        const screen = await wordsAfterTab(term, `dasvc rpc odd ${name.slice(0, 2)}`);
        expect(screen, name).toContain(`<odd>\r\n<${name}>\r\n`);
      }
      // A param name is completed with its "=" and no space after it.
      const param = paramNames(marker)[0]!;
      const screen = await wordsAfterTab(term, 'dasvc rpc odd qp x', '1');
      expect(screen).toContain(`<qp>\r\n<${param}=1>\r\n`);
      // Every candidate listed: none of the names that no shell word can hold.
      const list = shell === 'bash' ? '\t' : '\t\t';
      term.type(`dasvc rpc odd ${list}`);
      const listed = await settled(term);
      expect(listed).toContain('plain');
      expect(listed).not.toContain('zbad');
      expect(listed).not.toContain('{scope}');
      term.type(`dasvc rpc odd qp ${list}`);
      // The one param a shell word can hold is offered; the others are not.
      const params = await settled(term);
      expect(params).toContain('touch');
      expect(params).not.toMatch(/a b|k=v|-f=/);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.skipIf(!present(shell))(
    "the shell's own file names for a file, none where a TAB has nothing to offer",
    SHELL_TEST,
    async () => {
      if (shell === 'fish') {
        const answers = await fishCompletes(
          FILE_CASES.map(([typed]) => typed),
          session.dir(),
        );
        expect(answers).toEqual([
          ['CHANGELOG.md'],
          ['--out=CHANGELOG.md'],
          ['id=@CHANGELOG.md'],
          ['id:=@docs/'],
          [],
          [],
        ]);
        return;
      }
      const term = await session.terminal();
      for (const [typed, word] of FILE_CASES) {
        const screen = await wordsAfterTab(term, typed);
        // zsh takes a folder's slash back when a separator is typed after it (AUTO_REMOVE_SLASH).
        const shown = shell === 'zsh' ? word.replace(/\/$/, '') : word;
        expect(screen, typed).toContain(`<${typed.split(' ').at(-2)}>\r\n<${shown}>\r\n`);
      }
      // Nothing typed after key=@, in a folder of one file with a space in its name: the whole
      // name, quoted as one word.
      const folder = scratchDir('dasvc-at-');
      writeFileSync(join(folder, 'the params.json'), '{}');
      await entered(term, `cd '${folder}'; echo MOVED''-5\r`, 'MOVED-5');
      try {
        const screen = await wordsAfterTab(term, 'dasvc rpc crm m id=@');
        expect(screen).toContain('<m>\r\n<id=@the params.json>\r\n');
      } finally {
        await entered(term, `cd - >/dev/null; echo BACK''-6\r`, 'BACK-6');
      }
    },
  );
});

/** fish's engine on every case, the cache empty at first: fish's first test. */
async function fishOffers(dir: string): Promise<void> {
  const [first] = await fishCompletes(['dasvc rpc crm contacts.'], dir);
  expect(first).not.toContain('contacts.list');
  await cached(dir, ['crm', 'wiki', 'odd']);
  const lines = [
    ...CASES.map(([typed]) => typed),
    ...EQUALS_CASES.map(([typed]) => typed),
    'dasvc rpc crm contacts.',
  ];
  const answers = await fishCompletes(lines, dir);
  for (const [i, [typed, offered]] of CASES.entries()) {
    expect(answers[i], typed).toEqual(expect.arrayContaining(offered));
  }
  // fish offers the whole word, `--flag=value`, when the word being completed is one.
  for (const [j, [typed, offered]] of EQUALS_CASES.entries()) {
    const last = typed.slice(typed.lastIndexOf(' ') + 1);
    const flag = last.includes('=') ? `${last.split('=')[0]!}=` : '';
    expect(answers[CASES.length + j], typed).toEqual(
      expect.arrayContaining(offered.map((value) => `${flag}${value}`)),
    );
  }
  expect(answers.at(-1)).not.toContain('login');
}

/** `__complete` as the bash script calls it, for the method names after `rpc <scope>`. */
function completeMethods(dir: string, scope: string, typed: string, env = {}) {
  return runCliProcess(
    ['__complete', '--shell=bash', `--word=${typed}`, '--', 'rpc', scope, typed],
    dir,
    { env },
  );
}

/** A 127.0.0.1 listener that accepts connections and never answers; `refuse` ends them all. */
async function silentServer(): Promise<{
  port: number;
  sockets: Socket[];
  refuse(): Promise<void>;
}> {
  const sockets: Socket[] = [];
  let refusing = false;
  const server: Server = createServer((socket) => {
    if (refusing) socket.destroy();
    else sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    sockets,
    refuse: async () => {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('dasvc __complete (what the scripts call)', () => {
  const discovers = async (scope: string) =>
    (await journalEntries(mock.url)).filter((e) => e.path === `/webservice/json/${scope}`).length;

  it('answers from the cache; a miss starts one refresher for the next TAB', async () => {
    const dir = await loggedIn();
    const before = await discovers('crm');
    expect(await completeMethods(dir, 'crm', 'contacts.l')).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    await cached(dir, ['crm', 'wiki', 'odd']);
    for (let i = 0; i < 2; i++) {
      expect(await completeMethods(dir, 'crm', 'contacts.l')).toEqual({
        code: 0,
        stdout: 'contacts.list\n',
        stderr: '',
      });
    }
    await refresherDone(dir);
    expect((await discovers('crm')) - before).toBe(1);
    const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, 'default.json')).mode & 0o777).toBe(0o600);
    // No token in the cache: names only.
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const token = /"accessToken":\s*"([^"]+)"/.exec(config)![1]!;
    expect(readFileSync(join(folder, 'default.json'), 'utf8')).not.toContain(token);
  });

  it('never waits on the network: an instance that does not answer', async () => {
    const silent = await silentServer();
    try {
      const dir = freshConfigDir();
      const api = `http://127.0.0.1:${silent.port}/webservice/json/{scope}`;
      const login = await runCli([...loginArgs(mock.url, 'crm'), '--api-url', api], dir, {
        env: browserEnv(),
      });
      expect(login.code, login.stderr).toBe(0);
      // While a refresher holds the profile's lock, none is started: what connects is the TAB.
      const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
      makeCacheFolder(folder);
      await withFileLock(refreshLock(folder, 'default'), async () => {
        expect(await completeMethods(dir, 'crm', '')).toEqual({ code: 0, stdout: '', stderr: '' });
      });
      expect(silent.sockets).toHaveLength(0);
      // Then a TAB starts the refresher, which asks in the background and waits there.
      expect(await completeMethods(dir, 'crm', '')).toEqual({ code: 0, stdout: '', stderr: '' });
      await until(() => silent.sockets.length > 0);
      expect(await completeMethods(dir, 'crm', '')).toEqual({ code: 0, stdout: '', stderr: '' });
      await silent.refuse();
      await refresherDone(dir);
      expect(readMethodCache(cacheFolder({ DASVC_CONFIG_DIR: dir }), 'default').scopes).toEqual({});
    } finally {
      await silent.refuse().catch(() => undefined);
    }
  });

  it("the refresher sends the profile's token only to its stored URL, whatever the environment says", async () => {
    const other = await silentServer();
    try {
      const dir = await loggedIn();
      const elsewhere = `http://127.0.0.1:${other.port}`;
      const env = { DASVC_BASE_URL: elsewhere, DASVC_API_URL: `${elsewhere}/{scope}` };
      // A line that calls another installation gets no names of this one, and asks nothing.
      expect(await completeMethods(dir, 'crm', '', env)).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
      const refresh = await runCliProcess(['__complete-refresh', 'default', 'crm'], dir, { env });
      expect(refresh).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(
        readMethodCache(cacheFolder({ DASVC_CONFIG_DIR: dir }), 'default').scopes.crm?.url,
      ).toBe(`${mock.url}/webservice/json/crm`);
      expect(other.sockets).toEqual([]);
    } finally {
      await other.refuse();
    }
  });

  it('one refresher per profile at a time: a second one ends without asking', async () => {
    const dir = await loggedIn();
    const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
    makeCacheFolder(folder);
    const before = await discovers('crm');
    // The lock as a running refresher holds it.
    await withFileLock(refreshLock(folder, 'default'), async () => {
      const refresh = await runCliProcess(['__complete-refresh', 'default', 'crm'], dir);
      expect(refresh).toEqual({ code: 0, stdout: '', stderr: '' });
    });
    expect(readMethodCache(folder, 'default').scopes).toEqual({});
    expect((await discovers('crm')) - before).toBe(0);
    // Once it is free, the next one asks.
    await runCliProcess(['__complete-refresh', 'default', 'crm'], dir);
    expect(readMethodCache(folder, 'default').scopes.crm?.methods.length).toBeGreaterThan(0);
    expect((await discovers('crm')) - before).toBe(1);
  });

  it('a FIFO in place of the config file, the method cache or users.json holds no TAB', async () => {
    const fifo = (path: string) => execFileSync('mkfifo', [path]);
    const empty = { code: 0, stdout: '', stderr: '' };
    const noConfig = freshConfigDir();
    fifo(join(noConfig, 'config.json'));
    expect(
      await runCliProcess(['__complete', '--shell=bash', '--', '--profile', ''], noConfig),
    ).toEqual(empty);
    // A cache that cannot be read is a miss: the lock a refresher holds keeps one from starting.
    const dir = await loggedIn();
    const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
    makeCacheFolder(folder);
    fifo(join(folder, 'default.json'));
    await withFileLock(refreshLock(folder, 'default'), async () => {
      expect(await completeMethods(dir, 'crm', '')).toEqual(empty);
    });
    const fixtures = scratchDir('dasvc-fixtures-');
    fifo(join(fixtures, 'users.json'));
    const users = ['mock', '--fixtures', fixtures, '--auto-approve', ''];
    expect(await runCliProcess(['__complete', '--shell=bash', '--', ...users], dir)).toEqual(empty);
  });

  it("tells a file's word only to a script that reads the line (--files)", async () => {
    const dir = freshConfigDir();
    const line = ['--', 'rpc', 'crm', '--batch', ''];
    expect(await runCliProcess(['__complete', '--shell=bash', '--files', ...line], dir)).toEqual({
      code: 0,
      stdout: '# files\n',
      stderr: '',
    });
    expect(await runCliProcess(['__complete', '--shell=bash', ...line], dir)).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('a script loaded before words were quoted gets only words that need no quoting', async () => {
    const dir = await loggedIn();
    await completeMethods(dir, 'odd', 'q');
    await cached(dir, ['odd']);
    await refresherDone(dir);
    const legacy = await runCliProcess(['__complete', '--', 'rpc', 'odd', ''], dir);
    expect(legacy.stdout.split('\n').filter(Boolean)).toEqual(['plain', 'qp']);
  });
});

describe.runIf(secretServiceTestsRun())('completion with tokens in the OS credential store', () => {
  const context = useSecretService();

  it("the refresher reads the profile's token from the store; a silent store holds no TAB", async () => {
    const dir = freshConfigDir();
    const env = { DBUS_SESSION_BUS_ADDRESS: context.service.address };
    const login = await runCliProcess(loginArgs(mock.url, 'crm'), dir, {
      env: { ...browserEnv(), ...env },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain('accessToken');
    expect(await completeMethods(dir, 'crm', 'contacts.l', env)).toMatchObject({ stdout: '' });
    await cached(dir, ['crm']);
    await refresherDone(dir);
    expect(await completeMethods(dir, 'crm', 'contacts.l', env)).toEqual({
      code: 0,
      stdout: 'contacts.list\n',
      stderr: '',
    });

    // A store that stops answering: TAB still answers from the files alone, and the refresher
    // that waits for the store gives up on its own.
    const folder = cacheFolder({ DASVC_CONFIG_DIR: dir });
    writeFileSync(join(folder, 'default.json'), '{}');
    context.service.freeze();
    try {
      expect(await completeMethods(dir, 'crm', 'contacts.l', env)).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
      await until(() => existsSync(refreshLock(folder, 'default')));
      await refresherDone(dir);
      expect(readMethodCache(folder, 'default').scopes).toEqual({});
    } finally {
      context.service.thaw();
    }
  });
});
