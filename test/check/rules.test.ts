import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/check/types.js';
import { selectRules, RULES } from '../../src/check/rule-catalogue.js';
import { apiUnusable, oauthAnswerOf } from '../../src/check/answers.js';
import {
  codeReplayRevokesRule,
  errorsShapeRule,
  expiresInRule,
  expiresInUnit,
  readExpiresInMember,
  tokenPathRule,
  wrongSecretRule,
} from '../../src/check/rules/token-rules.js';
import { oldRefusedRule, rotationRule } from '../../src/check/rules/refresh-rules.js';
import {
  revokedAccessRule,
  revokedRefreshRule,
  unknownTokenRule,
} from '../../src/check/rules/revoke-rules.js';
import {
  bearerRefusedRule,
  discoverRule,
  scopeNotGrantedRule,
} from '../../src/check/rules/api-rules.js';
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
    const revoked = answer(200, { result: 'Token revoked' });
    expect(unknownTokenRule(answer(400, { error: 'invalid_request' }), revoked).quirk).toEqual({
      revokeUnknownToken: 'error',
    });
    expect(unknownTokenRule(answer(500, 'x', 'text/plain'), revoked).quirk).toBeUndefined();
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

  it("revoke.unknown-token compares with the known token's answer, not with SERVICE.md's text", () => {
    const empty = answer(200, {});
    expect(unknownTokenRule(answer(200, {}), empty)).toMatchObject({ status: 'ok' });
    // Member order aside, the same JSON is the same answer; an empty body alike too.
    expect(
      unknownTokenRule(answer(200, '{"b":1,"a":2}'), answer(200, '{"a":2,"b":1}')).status,
    ).toBe('ok');
    expect(unknownTokenRule(answer(200, '', 'text/plain'), answer(200, '')).status).toBe('ok');
    const other = unknownTokenRule(answer(200, { result: 'unknown' }), answer(200, {}));
    expect(other).toMatchObject({ status: 'deviates' });
    expect(other.observed).toBe('both answered HTTP 200, with different bodies');
    expect(other.quirk).toBeUndefined();
    expect(unknownTokenRule(noAnswer, empty)).toMatchObject({ status: 'skipped' });
    expect(unknownTokenRule(empty, noAnswer).observed).toContain('the known token got no answer');
  });

  const works = answer(200, { jsonrpc: '2.0', result: {}, id: 1 });
  const refusedApi = answer(401, { error: 'invalid_token' });
  const notFound = answer(404, '<h1>Not Found</h1>', 'text/html');
  const revoked = answer(200, { result: 'Token revoked' });

  it('revoke.access-token is measured only when the token worked before and the revocation was confirmed', () => {
    expect(revokedAccessRule(works, revoked, refusedApi).status).toBe('ok');
    expect(revokedAccessRule(works, revoked, works).status).toBe('deviates');
    // The API answers 404: whether the token works is not told, before or after.
    expect(revokedAccessRule(notFound, revoked, notFound)).toMatchObject({
      status: 'skipped',
      observed:
        'the access token did not work before the revocation: the API answered HTTP 404 (text/html)',
    });
    expect(revokedAccessRule(works, revoked, notFound).status).toBe('skipped');
    expect(revokedAccessRule(works, revoked, noAnswer).status).toBe('skipped');
    expect(revokedAccessRule(works, answer(400, { error: 'invalid_request' })).observed).toMatch(
      /^the revocation was refused \(HTTP 400 invalid_request/,
    );
    expect(revokedAccessRule(works, noAnswer).status).toBe('skipped');
  });

  it('revoke.refresh-token: a refresh that still works deviates; unknown answers are skipped', () => {
    const refused = answer(400, { error: 'invalid_grant' });
    const tokens = answer(200, { access_token: 'a', refresh_token: 'r' });
    expect(revokedRefreshRule(revoked, { refresh: refused, api: refusedApi }).status).toBe('ok');
    expect(revokedRefreshRule(revoked, { refresh: tokens, api: notFound }).status).toBe('deviates');
    expect(revokedRefreshRule(revoked, { refresh: refused, api: works }).status).toBe('deviates');
    expect(revokedRefreshRule(revoked, { refresh: refused, api: notFound }).status).toBe('skipped');
    expect(revokedRefreshRule(revoked, { refresh: noAnswer, api: refusedApi }).status).toBe(
      'skipped',
    );
    expect(revokedRefreshRule(answer(500, 'oops', 'text/plain')).status).toBe('skipped');
  });

  it('code.replay-revokes is skipped when the API or the refresh afterwards tells nothing', () => {
    const refused = answer(400, { error: 'invalid_grant' });
    expect(codeReplayRevokesRule(refusedApi, refused).status).toBe('ok');
    expect(codeReplayRevokesRule(works, refused).status).toBe('deviates');
    expect(codeReplayRevokesRule(notFound, refused).status).toBe('skipped');
    expect(codeReplayRevokesRule(refusedApi, noAnswer).status).toBe('skipped');
  });

  it('the API rules: a 404 (no instance) measures nothing; the JSON-RPC rules need a token that gets through', () => {
    expect(bearerRefusedRule(notFound)).toMatchObject({
      status: 'skipped',
      observed:
        'HTTP 404 from http://i.test/webservice/authorize: no instance answers there, so nothing was put to the test',
    });
    expect(scopeNotGrantedRule(notFound).status).toBe('skipped');
    expect(scopeNotGrantedRule(answer(403, '')).status).toBe('ok');
    expect(bearerRefusedRule(works).status).toBe('deviates');
    expect(apiUnusable(works)).toBeUndefined();
    // A JSON-RPC error under an HTTP error status still came from behind the bearer check.
    expect(apiUnusable(answer(404, { jsonrpc: '2.0', error: { code: -32601 }, id: 1 }))).toBe(
      undefined,
    );
    expect(apiUnusable(notFound)).toBe(
      'the fresh access token did not work at the API, which answered HTTP 404 (text/html)',
    );
    expect(apiUnusable(refusedApi)).toMatch(/HTTP 401 invalid_token/);
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
    // Any start of an id: a whole part, or within one.
    expect([...selectRules('refresh.new, revoke.refresh')]).toEqual([
      'refresh.new-pair',
      'revoke.refresh-token',
    ]);
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
    // What the installation sent drives no terminal: escapes, in the answer and its headers.
    const hostile = evidenceLines({
      request: { method: 'GET', url: 'http://i.test/x', headers: {} },
      response: {
        status: 400,
        headers: { 'www-authenticate': 'Bearer \u001b]0;t\u0007' },
        text: '{"error":"x\u009b2J\u202e"}',
      },
    }).join('\n');
    for (const raw of ['\u001b', '\u0007', '\u009b', '\u202e']) expect(hostile).not.toContain(raw);
    expect(hostile).toContain('\\u009b2J\\u202e');
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
