// Recipe: the library guide's example (docs/guides/library.md), taken from the guide and run
// exactly as written, as an integrator's script importing the package by name, against the mock.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, STANDIN_BROWSER, startMockForCli } from '../helpers/cli.js';

// The consent page is shown: the login goes through the browser (the stand-in, approving as alice).
const mock = startMockForCli({});
// Inside the package's own folder, `import … from 'dasvc'` resolves to the package itself.
const scratch = join(ROOT, '.tmp');
mkdirSync(scratch, { recursive: true });
const work = mkdtempSync(join(scratch, 'dasvc-library-'));
const home = mkdtempSync(join(tmpdir(), 'dasvc-library-home-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
  try {
    rmdirSync(scratch); // only when no one else left anything there
  } catch {
    // not empty: another test's files
  }
});

/** The first ```js block under the heading, as the guide shows it. */
function guideBlock(heading: string): string {
  const guide = readFileSync(join(ROOT, 'docs/guides/library.md'), 'utf8');
  const start = guide.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading} in docs/guides/library.md`);
  const section = guide.slice(start);
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`no js block under ${heading}`);
  return block[1]!;
}

function node(file: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the library guide's example", () => {
  it('runs as written: login, rpc, refresh, a refused call, status, logout', async () => {
    const file = join(work, 'example.mjs');
    writeFileSync(file, guideBlock('## An example'));
    const result = await node(file, {
      PATH: process.env.PATH ?? '',
      HOME: home,
      DASVC_CONFIG_DIR: home,
      DASVC_BASE_URL: mock.url,
      BROWSER: `${process.execPath} ${STANDIN_BROWSER}`,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(JSON.parse(lines[0]!.replace(/'/g, '"'))).toEqual(['Ada Lovelace', 'Grace Hopper']);
    expect(lines[1]).toBe('refreshed');
    expect(lines[2]).toMatch(/^service 1 /);
    expect(result.stdout).toContain('loggedIn: true');
    expect(result.stderr).toContain('/webservice/authorize/?response_type=code');
  });
});
