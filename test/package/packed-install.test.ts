// The package as it is published (SPEC §1): `npm pack`, the tarball installed in an empty project
// (no msw) at the versions of the repository's lock (test/helpers/pinned-install.ts), then the
// CLI, the three exports from ESM, and the types under `moduleResolution: node16` and `bundler`
// from there. One slow file: it packs and installs once.
import { execFile, spawn } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { ts } from '../helpers/typescript.js';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracked } from '../helpers/children.js';
import { ROOT } from '../helpers/cli.js';
import { pinnedProject } from '../helpers/pinned-install.js';

/** The install footprint goal, without msw: 15 MiB on disk, in KiB (docs/design/package-size.md). */
const FOOTPRINT_LIMIT_KIB = 15 * 1024;
const MARKER = 'dasvc-test: native module loaded:';

let work: string;
let project: string;
let tarball: string;
let packedFiles: string[];

interface Lock {
  packages: Record<string, { version?: string; dev?: boolean }>;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a shell in the empty project: none of `npm test`'s own npm_* variables. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name)) env[name] = value;
  }
  return { ...env, NO_COLOR: '1', DASVC_CONFIG_DIR: join(work, 'config'), ...extra };
}

function run(file: string, args: string[], env = cleanEnv()): Promise<Run> {
  return new Promise((resolve) => {
    tracked(
      execFile(file, args, { cwd: project, env }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  });
}

/** `node_modules/.bin/dasvc …` with a hook that reports any native module loaded (dlopen). */
function dasvc(args: string[]): Promise<Run> {
  return run(join(project, 'node_modules/.bin/dasvc'), args, cleanEnv(hookEnv()));
}

function hookEnv(): Record<string, string> {
  return { NODE_OPTIONS: `--import=${join(work, 'dlopen-hook.mjs')}` };
}

/**
 * What `dir` takes on disk as `du -sk` counts it on a file system of 4 KiB blocks, whatever this
 * one's are: each folder one block, each file its size rounded up to whole blocks, a link none.
 * Per package too (a scope's packages each), for the log.
 */
function footprint(dir: string): { kib: number; packages: Map<string, number> } {
  const packages = new Map<string, number>();
  const walk = (path: string): number => {
    let kib = 4;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        const size = walk(full);
        kib += size;
        const inModules = path.endsWith('node_modules') || /node_modules\/@[^/]+$/.test(path);
        if (inModules && !entry.name.startsWith('.') && !entry.name.startsWith('@')) {
          packages.set(full.slice(full.lastIndexOf('node_modules/') + 13), size);
        }
      } else if (entry.isFile()) {
        kib += Math.ceil(lstatSync(full).size / 4096) * 4;
      }
    }
    return kib;
  };
  return { kib: walk(dir), packages };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'dasvc-packed-'));
  project = join(work, 'project');
  mkdirSync(project);
  // The dist that `npm test` has just built; --ignore-scripts: no rebuild under the other test files.
  const packed = await new Promise<Run>((resolve) =>
    execFile(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
      { cwd: ROOT, env: cleanEnv() },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
    ),
  );
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  packedFiles = info!.files.map((f) => f.path);

  const pinned = pinnedProject(
    'empty-project',
    `../${info!.filename}`,
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')),
    JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')),
  );
  writeFileSync(join(project, 'package.json'), pinned.packageJson);
  writeFileSync(join(project, 'package-lock.json'), pinned.packageLock);
  writeFileSync(
    join(work, 'dlopen-hook.mjs'),
    `import { writeSync } from 'node:fs';
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  writeSync(2, ${JSON.stringify(MARKER)} + ' ' + filename + '\\n');
  return dlopen.call(this, module, filename, ...rest);
};
`,
  );
  // From the npm cache that `npm ci` filled; the registry only for what the cache lacks.
  const installed = await run('npm', [
    'ci',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
  ]);
  expect(installed.code, installed.stderr).toBe(0);
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('carries the LICENSE, the README, no sources or tests, no source maps, no build state', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(packedFiles.filter((f) => /^(src|test|scripts|\.ci)\//.test(f))).toEqual([]);
    // No map at all: one would point at sources the package does not ship.
    expect(packedFiles.filter((f) => f.endsWith('.map'))).toEqual([]);
    // tsc's declarations of every file and its build info stay behind: the exports' are shipped.
    expect(packedFiles.filter((f) => /^dist\/declarations\/|\.tsbuildinfo$/.test(f))).toEqual([]);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    // The libraries bundled into dist/ bring their licenses along.
    expect(packedFiles).toContain('dist/LICENSES.txt');
    const licenses = readFileSync(join(ROOT, 'dist/LICENSES.txt'), 'utf8');
    for (const library of ['env-paths', 're2js', 'proper-lockfile', '@open-rpc/meta-schema'])
      expect(licenses).toContain(`${library} `);
  });

  it('passes publint (strict) and arethetypeswrong (ESM-only profile)', async () => {
    const { messages, pkg } = await publint({
      pack: { tarball: readFileSync(tarball).buffer as ArrayBuffer },
      strict: true,
    });
    expect(messages.map((m) => formatMessage(m, pkg) ?? m.code)).toEqual([]);
    const attw = await run(process.execPath, [
      join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'),
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'ascii',
    ]);
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  });

  it('installs without msw, under the footprint goal', () => {
    const { kib, packages } = footprint(join(project, 'node_modules'));
    // The install's footprint and its heaviest packages, for anyone reading the test log.
    const heaviest = [...packages].sort(([, a], [, b]) => b - a).slice(0, 8);
    console.log(
      `installed: ${kib} KiB on disk in ${packages.size} packages; heaviest: ${heaviest.map(([name, size]) => `${name} ${size}`).join(', ')}`,
    );
    expect(readdirSync(join(project, 'node_modules'))).not.toContain('msw');
    expect(kib).toBeLessThanOrEqual(FOOTPRINT_LIMIT_KIB);
    // The footprint is that of a user's install: every package installed is a runtime one of our
    // lock (none of its dev packages), at the version our lock puts at that path. pinned-install.ts
    // derives the install's lock from ours; this checks the derivation, not npm ci.
    const ours = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const theirs = JSON.parse(
      readFileSync(join(project, 'node_modules/.package-lock.json'), 'utf8'),
    ) as Lock;
    const versions = (lock: Lock, paths: string[]) => paths.map((p) => lock.packages[p]?.version);
    const installed = Object.keys(theirs.packages).filter((p) => p !== 'node_modules/dasvc');
    expect(installed).toHaveLength(packages.size - 1);
    expect(versions(theirs, installed)).toEqual(versions(ours, installed));
    expect(installed.filter((p) => ours.packages[p]?.dev === true)).toEqual([]);
  });
});

describe('the CLI from the installed package', () => {
  it('--version and --help answer without loading the native keyring binding', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const version = await dasvc(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect(version.stderr).not.toContain(MARKER);
    const help = await dasvc(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: dasvc');
    expect(help.stderr).not.toContain(MARKER);
    // The hook does see the binding when it loads: the check above can fail.
    const control = await run(
      process.execPath,
      ['-e', 'await import("@napi-rs/keyring")', '--input-type=module'],
      cleanEnv(hookEnv()),
    );
    expect(control.stderr).toContain(MARKER);
  });

  it('dasvc mock prints its listening line first, without the native binding', async () => {
    const child = spawn(
      join(project, 'node_modules/.bin/dasvc'),
      ['mock', '--port', '0', '--quiet'],
      {
        cwd: project,
        env: cleanEnv(hookEnv()),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n')) resolve();
        });
        child.on('close', () => reject(new Error(`mock exited: ${stderr}`)));
      });
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout)?.[1];
      expect(url, stdout).toBeDefined();
      const answer = await fetch(`${url}/webservice/json/crm`, {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 }),
      });
      expect(answer.status).toBe(401);
    } finally {
      child.kill();
      await exited;
    }
    expect(stderr).not.toContain(MARKER);
  });

  it('dasvc types names the peer it needs, and writes the declarations once it is there', async () => {
    const from = ['types', '--from', 'node_modules/dasvc/fixtures'];
    const missing = await dasvc(from);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'dasvc types needs json-schema-to-typescript, an optional peer dependency that is not installed',
    );
    expect(missing.stderr).toContain('hint: npm install -D json-schema-to-typescript');
    // The integrator's own (a dev dependency of theirs): the repository's copy, linked.
    symlinkSync(
      join(ROOT, 'node_modules/json-schema-to-typescript'),
      join(project, 'node_modules/json-schema-to-typescript'),
      'dir',
    );
    const written = await dasvc(from);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(
      'export interface Api {\n  crm: CrmMethods;\n  wiki: WikiMethods;\n}',
    );
  });

  it('dasvc demo runs the whole flow', async () => {
    const demo = await dasvc(['demo']);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('Ada Lovelace, Grace Hopper');
    expect(demo.stdout).toContain('{"result":"Token revoked"}');
  });
});

describe('the exports from ESM and TypeScript', () => {
  it('imports dasvc and dasvc/mock without msw; dasvc/msw names the missing peer', async () => {
    writeFileSync(
      join(project, 'without-msw.mjs'),
      `
import { dasvc, DasvcError } from 'dasvc';
import { createMockApp, startMockServer } from 'dasvc/mock';
const app = createMockApp();
const answer = await app(new Request('http://x.test/webservice/json/crm', { method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 }) }));
const server = await startMockServer({ port: 0 });
await server.close();
let msw = '';
try { await import('dasvc/msw'); } catch (error) { msw = (error instanceof DasvcError ? 'DasvcError: ' : '') + error.message; }
console.log(JSON.stringify({ client: typeof dasvc, status: answer.status, url: server.url.startsWith('http://'), msw }));
`,
    );
    const result = await run(process.execPath, ['without-msw.mjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      client: 'function',
      status: 401,
      url: true,
      msw: expect.stringMatching(/^DasvcError: dasvc\/msw needs msw.*npm install -D msw/),
    });
  });

  it('dasvc/msw answers through msw once the project has it', async () => {
    // The integrator's own msw (a dev dependency of theirs): the repository's copy, linked.
    symlinkSync(join(ROOT, 'node_modules/msw'), join(project, 'node_modules/msw'), 'dir');
    writeFileSync(
      join(project, 'with-msw.mjs'),
      `
import { createMockHandlers } from 'dasvc/msw';
import { setupServer } from 'msw/node';
const server = setupServer(...createMockHandlers({ baseUrl: 'https://das.example.test' }));
server.listen({ onUnhandledRequest: 'error' });
const answer = await fetch('https://das.example.test/webservice/authorize?grant_type=authorization_code&client_id=demo-client&client_secret=demo-secret&code=nope', { method: 'POST' });
server.close();
console.log(JSON.stringify([answer.status, (await answer.json()).error]));
`,
    );
    const result = await run(process.execPath, ['with-msw.mjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([400, 'invalid_grant']);
  });

  it('exports exactly the public names, at run time and in the declarations', async () => {
    writeFileSync(
      join(project, 'exports.mjs'),
      `
const names = async (entry) => Object.keys(await import(entry)).sort();
console.log(JSON.stringify([await names('dasvc'), await names('dasvc/mock'), await names('dasvc/msw')]));
`,
    );
    const result = await run(process.execPath, ['exports.mjs']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      ['DasvcError', 'dasvc'],
      ['createMockApp', 'startMockServer'],
      ['createMockHandlers'],
    ]);
    // Every name the root's declarations export, types included (docs/design/public-api.md).
    const declarations = join(project, 'node_modules/dasvc/dist/index.d.ts');
    // The names alone, which binding gives: no default library nor @types to read for them.
    const program = ts.createProgram([declarations], { noEmit: true, noLib: true, types: [] });
    const root = program
      .getTypeChecker()
      .getSymbolAtLocation(program.getSourceFile(declarations)!)!;
    const exported = program
      .getTypeChecker()
      .getExportsOfModule(root)
      .map((s) => s.name);
    expect(exported.sort()).toEqual(
      [
        'BatchAnswerOf',
        'BatchCall',
        'BatchCallOf',
        'BatchResult',
        'DasvcClient',
        'DasvcError',
        'DasvcOptions',
        'ErrorKind',
        'ErrorOf',
        'ExitCode',
        'HttpRequest',
        'HttpResponse',
        'JsonRpcErrorObject',
        'LoginOptions',
        'LoginOutcome',
        'LogoutOutcome',
        'MethodOf',
        'NamedParamsOf',
        'ParamsOf',
        'ResultOf',
        'RevokeAnswer',
        'RevokeOutcome',
        'ScopeOf',
        'SendFn',
        'SessionStatus',
        'Tell',
        'TokenSet',
        'TypedCalls',
        'Untyped',
        'dasvc',
      ].sort(),
    );
  });

  it('type-checks under moduleResolution node16 and bundler, with TypeScript 5.9 and 7, and without @types/node', async () => {
    symlinkSync(join(ROOT, 'node_modules/@types'), join(project, 'node_modules/@types'), 'dir');
    writeFileSync(
      join(project, 'typed.ts'),
      `
import { dasvc, DasvcError, type DasvcClient, type SessionStatus, type TokenSet } from 'dasvc';
import { createMockApp, startMockServer } from 'dasvc/mock';
import { createMockHandlers } from 'dasvc/msw';
import type { MethodHandler } from 'dasvc/mock';

interface CrmMethods {
  'contacts.get': { params: { id: number } | [number]; result: { id?: number } };
}
interface Api {
  crm: CrmMethods;
}
const typed: DasvcClient<Api> = dasvc<Api>({ store: 'memory' });
const contact: Promise<{ id?: number }> = typed.rpc('crm', 'contacts.get', { id: 1 });
const getContact: MethodHandler<Api, 'crm', 'contacts.get'> = ({ params }) => ({ id: params.id });
const overridden: unknown[] = createMockHandlers<Api>({ baseUrl: 'https://x.test', methods: { crm: { 'contacts.get': getContact } } });

const client: DasvcClient = dasvc({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b' });
const memory: DasvcClient = dasvc({ baseUrl: 'http://127.0.0.1:1', store: 'memory' });
const storage: Promise<'keychain' | 'file' | 'memory'> = memory.status().then((s: SessionStatus) => s.storage);
const handler: (request: Request) => Promise<Response> = createMockApp({ accessTtl: '1h' });
const server: Promise<{ url: string; close(): Promise<void> }> = startMockServer({ port: 0 });
const handlers: unknown[] = createMockHandlers({ baseUrl: 'https://x.test', codeTtl: 60 });
const isError = (value: unknown): value is DasvcError => value instanceof DasvcError;
let tokens: TokenSet | undefined;
export { client, memory, storage, handler, server, handlers, isError, tokens, contact, overridden };
`,
    );
    // Both compilers a consumer may have, in both resolutions. TypeScript 7 also checks every
    // shipped declaration in full under node16 (skipLibCheck off: ours and our dependencies', but
    // TypeScript's own lib files); 5.9, which built them, checks how the consumer's code sees them
    // (skipLibCheck: the full pass again in 5.9 cost ~2 s of CPU for the same declarations).
    // Each compiler checks its two projects in one build (one load, shared declarations).
    const configure = (name: string, module: string, resolution: string, skipLibCheck: boolean) =>
      writeFileSync(
        join(project, name),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module,
            moduleResolution: resolution,
            target: 'ES2022',
            noEmit: true,
            skipLibCheck,
            skipDefaultLibCheck: true,
            types: ['node'],
            lib: ['ES2022', 'DOM'],
          },
          files: ['typed.ts'],
        }),
      );
    // Regression: the declarations named NodeJS.ProcessEnv, Buffer and node:crypto, so a project
    // without @types/node could not type-check them. Checked with no types at all (msw's export
    // needs msw's, which a user of it has).
    writeFileSync(
      join(project, 'no-node-types.ts'),
      `
import { dasvc, DasvcError, type DasvcClient } from 'dasvc';
import { createMockApp, startMockServer } from 'dasvc/mock';
const client: DasvcClient = dasvc({ env: { DASVC_BASE_URL: 'http://127.0.0.1:1' }, store: 'memory' });
export { client, DasvcError, createMockApp, startMockServer };
`,
    );
    writeFileSync(
      join(project, 'tsconfig.7-no-node.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'Node16',
          moduleResolution: 'Node16',
          target: 'ES2022',
          noEmit: true,
          skipDefaultLibCheck: true,
          types: [],
          lib: ['ES2022', 'DOM'],
        },
        files: ['no-node-types.ts'],
      }),
    );
    // A project per compiler: build mode keeps each project's build info beside its config.
    configure('tsconfig.5-node16.json', 'Node16', 'Node16', true);
    configure('tsconfig.5-bundler.json', 'ESNext', 'Bundler', true);
    configure('tsconfig.7-node16.json', 'Node16', 'Node16', false);
    configure('tsconfig.7-bundler.json', 'ESNext', 'Bundler', true);
    const checks = await Promise.all([
      run(process.execPath, [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-b',
        'tsconfig.5-node16.json',
        'tsconfig.5-bundler.json',
      ]),
      run(process.execPath, [
        join(ROOT, 'node_modules/typescript-native/bin/tsc'),
        '-b',
        'tsconfig.7-node16.json',
        'tsconfig.7-bundler.json',
        'tsconfig.7-no-node.json',
      ]),
    ]);
    expect(checks.map((c) => c.stdout)).toEqual(['', '']);
    expect(checks.map((c) => c.code)).toEqual([0, 0]);
  });
});
