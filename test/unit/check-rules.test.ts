import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/check/types.js';
import { selectRules, RULES } from '../../src/check/rule-catalogue.js';
import { oauthAnswerOf } from '../../src/check/answers.js';
import {
  errorsShapeRule,
  expiresInRule,
  expiresInUnit,
  readExpiresInMember,
  tokenPathRule,
  wrongSecretRule,
} from '../../src/check/rules/token-rules.js';
import { oldRefusedRule, rotationRule } from '../../src/check/rules/refresh-rules.js';
import { unknownTokenRule } from '../../src/check/rules/revoke-rules.js';
import { bearerRefusedRule, discoverRule } from '../../src/check/rules/api-rules.js';
import { evidenceLines, quirksOf, reportJunit, reportLines } from '../../src/check/report.js';

const REQUEST = { method: 'POST' as const, url: 'http://i.test/webservice/authorize', headers: {} };

function answer(status: number, body: unknown, type = 'application/json'): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { request: REQUEST, response: { status, headers: { 'content-type': type }, text } };
}
const noAnswer: Exchange = { request: REQUEST, error: 'cannot reach http://i.test: ECONNRESET' };

describe('reading answers', () => {
  it('tells success, JSON errors, bare-code text errors and other shapes apart', () => {
    expect(oauthAnswerOf(answer(200, { access_token: 'a' })).kind).toBe('success');
    expect(oauthAnswerOf(answer(400, { error: 'invalid_grant' }))).toMatchObject({
      kind: 'error',
      code: 'invalid_grant',
      shape: 'json',
    });
    expect(oauthAnswerOf(answer(400, 'invalid_grant', 'text/plain'))).toMatchObject({
      code: 'invalid_grant',
      shape: 'text',
    });
    expect(oauthAnswerOf(answer(500, '<html>oops</html>', 'text/html'))).toMatchObject({
      shape: 'other',
    });
    expect(oauthAnswerOf(answer(200, '<html></html>', 'text/html')).kind).toBe('unexpected');
    expect(oauthAnswerOf(noAnswer).kind).toBe('none');
  });
});

describe('rules', () => {
  it('token.expires-in: string seconds ok; number and milliseconds deviate with their quirk', () => {
    const ex = answer(200, {});
    const str = readExpiresInMember({ expires_in: '3600' });
    expect(expiresInRule(str, undefined, 0, ex).status).toBe('ok');
    expect(expiresInRule(str, undefined, 0, ex).observed).toContain('seconds assumed');
    const num = readExpiresInMember({ expires_in: 3600 });
    expect(expiresInRule(num, undefined, 0, ex).quirk).toEqual({ expiresIn: 'number' });
    const probe = { waitedMs: 2300, stillWorks: false, evidence: answer(401, {}) };
    const ms = expiresInRule(readExpiresInMember({ expires_in: '2000' }), probe, 5000, ex);
    expect(ms.quirk).toEqual({ expiresIn: 'milliseconds' });
    expect(expiresInRule(readExpiresInMember({}), undefined, 0, ex).quirk).toEqual({
      expiresIn: 'absent',
    });
    expect(
      expiresInRule(readExpiresInMember({ expires_in: '1h' }), undefined, 0, ex),
    ).toMatchObject({ status: 'deviates' });
  });

  it('token.expires-in: a large untimed value is still seconds assumed (no value alone tells the unit)', () => {
    const ex = answer(200, {});
    const hour = expiresInRule(readExpiresInMember({ expires_in: '3600000' }), undefined, 0, ex);
    expect(hour.status).toBe('ok');
    expect(hour.observed).toContain('seconds assumed');
    expect(expiresInUnit(undefined)).toBe('seconds');
  });

  it('client.wrong-secret wants invalid_client; a missing answer deviates and says so', () => {
    expect(wrongSecretRule(answer(401, { error: 'invalid_client' })).status).toBe('ok');
    expect(wrongSecretRule(answer(400, { error: 'invalid_grant' })).status).toBe('deviates');
    expect(wrongSecretRule(noAnswer).observed).toContain('ECONNRESET');
  });

  it('errors.shape: all text codes is the errorBody quirk; a mixture is a deviation without one', () => {
    const json = answer(400, { error: 'invalid_grant' });
    const text = answer(401, 'invalid_client', 'text/plain');
    const html = answer(400, '<p>bad</p>', 'text/html');
    expect(errorsShapeRule([json, json]).status).toBe('ok');
    expect(errorsShapeRule([text, text]).quirk).toEqual({ errorBody: 'text' });
    expect(errorsShapeRule([json, html])).toMatchObject({ status: 'deviates' });
    expect(errorsShapeRule([json, html]).quirk).toBeUndefined();
    expect(errorsShapeRule([]).status).toBe('skipped');
  });

  it('refresh rules, revoke.unknown-token, api and discover rules map to their quirks', () => {
    expect(
      rotationRule('r1', answer(200, { access_token: 'a', refresh_token: 'r1' })).quirk,
    ).toEqual({ refreshRotation: false });
    expect(oldRefusedRule(answer(200, { access_token: 'a', refresh_token: 'r' })).quirk).toEqual({
      oldRefreshTokenAccepted: true,
    });
    expect(unknownTokenRule(answer(400, { error: 'invalid_request' })).quirk).toEqual({
      revokeUnknownToken: 'error',
    });
    expect(unknownTokenRule(answer(500, 'x', 'text/plain')).quirk).toBeUndefined();
    expect(
      discoverRule(answer(200, { jsonrpc: '2.0', error: { code: -32601 }, id: 1 })).quirk,
    ).toEqual({ rpcDiscover: false });
    const challenge = {
      request: REQUEST,
      response: { status: 401, headers: { 'www-authenticate': 'Bearer' }, text: '' },
    };
    expect(bearerRefusedRule(challenge).status).toBe('ok');
    expect(bearerRefusedRule(answer(401, {})).status).toBe('deviates');
  });

  it('endpoints.token-path gives the path under the base URL', () => {
    expect(tokenPathRule('http://i.test', 'http://i.test/webservice/authorize').status).toBe('ok');
    expect(tokenPathRule('http://i.test/das', 'http://i.test/das/oauth/token').quirk).toEqual({
      tokenPath: '/oauth/token',
    });
    expect(tokenPathRule(undefined, 'http://i.test/x').status).toBe('skipped');
  });
});

describe('selection, evidence and reports', () => {
  it('--only takes ids and prefixes, keeps catalogue order, refuses unknown names', () => {
    expect([...selectRules('jsonrpc.batch,code')]).toEqual([
      'jsonrpc.batch',
      'code.single-use',
      'code.replay-revokes',
    ]);
    expect(selectRules(undefined).size).toBe(RULES.length);
    expect(() => selectRules('codes')).toThrow(/"codes"/);
  });

  it('evidence redacts secrets in the request and the answer', () => {
    const ex: Exchange = {
      request: {
        method: 'POST',
        url: 'http://i.test/webservice/authorize?client_id=c&client_secret=s3cr3t&code=abc',
        headers: { authorization: 'Bearer tok-123456' },
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: JSON.stringify({ access_token: 'acc-secret', refresh_token: 'ref-secret' }),
      },
    };
    const text = evidenceLines(ex).join('\n');
    for (const secret of ['s3cr3t', 'abc', 'tok-123456', 'acc-secret', 'ref-secret']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('client_id=c');
  });

  it('quirksOf merges in table order and drops what the mock cannot load', () => {
    const v = (quirk: object) => ({
      id: 'x',
      status: 'deviates' as const,
      expected: '',
      observed: '',
      quirk,
    });
    expect(Object.keys(quirksOf([v({ rpcDiscover: false }), v({ expiresIn: 'number' })]))).toEqual([
      'expiresIn',
      'rpcDiscover',
    ]);
    expect(quirksOf([v({ tokenPath: '/webservice/authorize/revoke' })])).toEqual({});
  });

  it('prints one line per rule (SPEC §7), a deviation with expected and redacted evidence', () => {
    const exchange: Exchange = {
      request: {
        method: 'POST',
        url: 'http://i.test/webservice/authorize?client_id=c&client_secret=s3cret',
        headers: {},
      },
      response: { status: 200, headers: { 'content-type': 'text/html' }, text: '<p>\nhi\n</p>' },
    };
    const lines = reportLines([
      { id: 'a.one', status: 'ok', expected: 'e', observed: 'fine' },
      {
        id: 'b',
        status: 'deviates',
        expected: 'refused',
        observed: 'HTTP 200',
        evidence: [exchange],
      },
      { id: 'c', status: 'skipped', expected: 'e', observed: 'no answer (refused)' },
    ]);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('ok        a.one  fine');
    expect(lines[1]).toMatch(
      /^deviates {2}b {5} HTTP 200 — expected: refused — evidence: > POST http:\/\/i\.test\/webservice\/authorize\?client_id=c&client_secret=\S+ \| < HTTP 200 text\/html \| < <p> hi <\/p>$/,
    );
    expect(lines[1]).not.toContain('s3cret');
    expect(lines[2]).toBe('skipped   c      no answer (refused)');
  });

  it('JUnit escapes what it quotes', () => {
    const xml = reportJunit('http://i.test', [
      { id: 'a', status: 'deviates', expected: 'x', observed: '<b> & "c"' },
    ]);
    expect(xml).toContain('&lt;b&gt; &amp; &quot;c&quot;');
    expect(xml).toContain('failures="1"');
  });
});
