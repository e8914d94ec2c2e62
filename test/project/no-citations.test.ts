// What a user reads names each rule in words: no help text, message, mock log line or journal
// reason cites the contract's or the interface document's sections (documents users do not
// have) or an issue number. Public specifications (RFC 6749, JSON-RPC 2.0) may be named, without
// section numbers. The built CLI's help of every command is checked by docs-commands.test.ts.
// Tests and scripts say what they prove or measure, not which issue asked for it (that is the
// commits' to tell); a test may name the SPEC section whose contract it checks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ts, type TypeScript } from '../helpers/typescript.js';
import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/mock/core/log-line.js';
import { JOURNALED_BASE, journaledApp } from '../helpers/in-process.js';
import { CITATION, ISSUE, ISSUE_CITED, NOT_ISSUE_CITED } from '../helpers/citations.js';
import { filesUnder } from '../helpers/files-under.js';

const ROOT = join(import.meta.dirname, '../..');

/** Every string a source file holds as a value (literals and template parts), not its comments. */
function stringsOf(path: string): { line: number; text: string }[] {
  const file = ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const found: { line: number; text: string }[] = [];
  const visit = (node: TypeScript.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      found.push({ line, text: node.text });
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

/** The lines of the files under `dirs` that `pattern` finds, as `path:line: text`. */
function linesCiting(dirs: string[], pattern: RegExp, except: string[] = []): string[] {
  return dirs
    .flatMap((dir) => filesUnder(dir, ''))
    .filter((path) => !except.includes(path))
    .flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path}:${i + 1}` }))
        .filter(({ line }) => pattern.test(line))
        .map(({ line, at }) => `${at}: ${line.trim().slice(0, 120)}`),
    );
}

describe('user-visible text names rules in words', () => {
  it('no string in src/ cites the contract, the interface document, a section or an issue', () => {
    const cited = filesUnder('src', '.ts').flatMap((path) =>
      stringsOf(path)
        .filter(({ text }) => CITATION.test(text))
        .map(({ line, text }) => `${path}:${line}: ${text.slice(0, 120)}`),
    );
    expect(cited).toEqual([]);
  });

  it("the package's fixtures and schemas, which editors and readers show, cite none either", () => {
    expect(linesCiting(['fixtures', 'schema'], CITATION)).toEqual([]);
  });

  it('the mock explains its refusals without citations, in the journal and the log line', async () => {
    const { app, clock, entries, post, mint } = journaledApp({ autoApprove: 'alice' });
    const base = JOURNALED_BASE;
    const credentials = 'client_id=demo-client&client_secret=demo-secret';
    const refresh = (token: string) =>
      post(
        `/webservice/authorize/refresh_token?grant_type=refresh_token&${credentials}&refresh_token=${token}`,
      );
    const list = '{"jsonrpc":"2.0","method":"contacts.list","id":1}';

    // An access token replaced by a refresh, then a refresh token that expired with its access token.
    const first = await mint();
    const second = (await (await refresh(first.refresh_token)).json()) as typeof first;
    await post('/webservice/json/crm', list, first.access_token);
    clock.t += 2 * 3600_000;
    await refresh(second.refresh_token);
    // A body that is not UTF-8, a redirect URI with a fragment, a PKCE verifier out of form.
    await post('/webservice/json/crm', new Uint8Array([0xff, 0xfe]), (await mint()).access_token);
    const authorize = (redirect: string, extra = '') =>
      app(
        new Request(
          `${base}/webservice/authorize/?response_type=code&client_id=demo-client&redirect_uri=${encodeURIComponent(redirect)}&scope=crm&state=s${extra}`,
        ),
      );
    await authorize('http://127.0.0.1:5555/cb#fragment');
    const challenge = `&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`;
    const location = (await authorize('http://127.0.0.1:5555/cb', challenge)).headers.get(
      'location',
    )!;
    const code = new URL(location).searchParams.get('code')!;
    await post(
      `/webservice/authorize?grant_type=authorization_code&${credentials}&code=${code}&code_verifier=short`,
    );
    // A wrong secret and a reused code.
    await post(
      `/webservice/authorize?grant_type=authorization_code&client_id=demo-client&client_secret=nope&code=x`,
    );
    await post(`/webservice/authorize?grant_type=authorization_code&${credentials}&code=${code}`);

    const reasons = entries.map((entry) => entry.reason ?? '');
    for (const expected of [
      'replaced by a refresh',
      'expired with its access token',
      'not UTF-8',
      'fragment',
      'code_verifier is not',
    ])
      expect(reasons.join('\n')).toContain(expected);
    const cited = entries
      .map((entry) => formatLogLine(entry))
      .filter((line) => CITATION.test(line));
    expect(cited).toEqual([]);
  });
});

describe('tests and scripts say what they prove, not which issue asked for it', () => {
  it('no line of test/ or scripts/ cites an issue number', () => {
    // The patterns, and the citations they must find, are written in that one file.
    expect(linesCiting(['test', 'scripts'], ISSUE, ['test/helpers/citations.ts'])).toEqual([]);
  });

  it('an issue number is found however it is cited, and nothing else is', () => {
    expect(ISSUE_CITED.filter((text) => !ISSUE.test(text))).toEqual([]);
    expect(NOT_ISSUE_CITED.filter((text) => ISSUE.test(text))).toEqual([]);
    // The same forms count as a citation in src/ strings, fixtures and docs.
    expect(ISSUE_CITED.filter((text) => !CITATION.test(text))).toEqual([]);
  });
});
