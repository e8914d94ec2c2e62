// Recipe: the GitHub Actions job in docs/github-actions-revoke.yml, run for real. Its dasvc lines
// are executed by bash with the job's environment pointed at a mock and an empty config dir.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockServer } from '../../src/mock/index.js';
import { runCli } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const workflow = readFileSync(join(root, 'docs/github-actions-revoke.yml'), 'utf8');
const dasvcLines = [...workflow.matchAll(/^\s+run: (.*\bdasvc .*)$/gm)].map((m) => m[1]!);

let mock: { url: string; close(): Promise<void> };
let configDir: string;

beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  configDir = mkdtempSync(join(tmpdir(), 'dasvc-ci-'));
});
afterAll(async () => {
  await mock.close();
  rmSync(configDir, { recursive: true, force: true });
});

const DASVC = `"${process.execPath}" "${join(root, 'bin/dasvc.js')}"`;

/** Runs a job line in bash, its `dasvc` being `dasvc` (the built CLI unless told otherwise). */
function bash(line: string, env: Record<string, string>, dasvc = DASVC) {
  const script = line.replace(/\bdasvc /g, `${dasvc} `);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-e', '-c', script],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('revokes a token from env credentials alone, and the token stops working', async () => {
  expect(dasvcLines).toHaveLength(2);
  const minted = await fetch(`${mock.url}/_mock/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'alice', scope: 'crm' }),
  });
  const { access_token } = (await minted.json()) as { access_token: string };
  const env = {
    CI: 'true',
    DASVC_CONFIG_DIR: configDir,
    DASVC_BASE_URL: mock.url,
    DASVC_CLIENT_ID: 'demo-client',
    DASVC_CLIENT_SECRET: 'demo-secret',
    DASVC_TOKEN: access_token,
  };

  // Whether the token works, before: the proof line's own dasvc command, asked in this process
  // (the job's lines themselves run in bash as written).
  const proofCommand = /^if dasvc (.+?); then/.exec(dasvcLines[1]!)?.[1]?.split(' ');
  expect(proofCommand).toBeDefined();
  const before = await runCli(proofCommand!, configDir, { env });
  expect(before.code, before.stderr).toBe(0);
  // The proof step must fail the job while the token still works: `dasvc rpc` exits 0 then (just
  // above), and the line, run with a command that exits 0 in its place, fails. The line runs
  // with the real CLI after the revocation.
  const earlyProof = await bash(dasvcLines[1]!, env, 'true');
  expect(earlyProof.code).toBe(1);

  const revoke = await bash(dasvcLines[0]!, env);
  expect(revoke.code, revoke.stderr).toBe(0);
  expect(JSON.parse(revoke.stdout)).toMatchObject({ result: 'Token revoked' });
  expect(revoke.stdout + revoke.stderr).not.toContain(access_token);
  expect(revoke.stdout + revoke.stderr).not.toContain('demo-secret');

  const proof = await bash(dasvcLines[1]!, env);
  expect(proof.code, proof.stderr).toBe(0);
  expect(proof.stdout).toBe('');
  expect(proof.stderr).toMatch(/401|invalid_token|not authori[sz]ed/i);
  const after = await runCli(['rpc', 'crm', 'contacts.list'], configDir, { env });
  expect(after.code).toBe(3);
});
