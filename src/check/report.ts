import { parseQuirks } from '../mock/core/quirks.js';
import { QUIRK_MEMBERS, type Quirks } from '../schemas/quirks.js';
import { requestSecrets } from '../http/request-secrets.js';
import { redactBody, redactHeader, redactUrl } from '../util/redact.js';
import { printable } from '../util/printable.js';
import type { Exchange, Verdict } from './types.js';

/** Longest body shown in evidence; the rest is cut (a page of HTML says nothing more). */
const BODY_LIMIT = 300;

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_LIMIT ? `${flat.slice(0, BODY_LIMIT)}…` : flat;
}

/**
 * An exchange as evidence lines (SPEC §7): request and answer, secrets redacted by name and, where
 * the installation echoed one back, by value.
 */
export function evidenceLines(exchange: Exchange): string[] {
  const secrets = requestSecrets(exchange.request);
  // Masked before any cut: a secret across the cut would no longer match whole.
  const cut = (text: string) => shorten(secrets.maskText(text));
  // What the installation sent, shown: nothing in it drives the terminal the report is read on.
  return exchangeLines(exchange, cut).map((line) => printable(secrets.maskText(line)));
}

function exchangeLines(exchange: Exchange, cut: (text: string) => string): string[] {
  const { request, response } = exchange;
  const lines = [`> ${request.method} ${redactUrl(request.url)}`];
  if (request.headers.authorization !== undefined) {
    lines.push(`> authorization: ${redactHeader('authorization', request.headers.authorization)}`);
  }
  if (request.body) {
    lines.push(`> ${cut(redactBody(request.body, request.headers['content-type'] ?? ''))}`);
  }
  if (exchange.redirect !== undefined) {
    lines.push(`< the browser was redirected to ${redactUrl(exchange.redirect)}`);
    return lines;
  }
  if (!response) {
    lines.push(`< no answer: ${exchange.error ?? 'unknown failure'}`);
    return lines;
  }
  const type = response.headers['content-type'] ?? '';
  const challenge = response.headers['www-authenticate'];
  lines.push(`< HTTP ${response.status}${type ? ` ${type}` : ''}`);
  if (challenge !== undefined) lines.push(`< www-authenticate: ${challenge}`);
  if (response.text !== '') lines.push(`< ${cut(redactBody(response.text, type))}`);
  return lines;
}

const MARK = { ok: 'ok      ', deviates: 'deviates', skipped: 'skipped ' } as const;

/**
 * The human report: one line per rule (SPEC §7: "prints one line"), a deviation's with what was
 * expected and its evidence, the exchange's lines joined by ` | ` (`grep deviates` shows it all).
 */
export function reportLines(verdicts: Verdict[]): string[] {
  const width = Math.max(...verdicts.map((v) => v.id.length), 0);
  return verdicts.map((v) => {
    const line = `${MARK[v.status]}  ${v.id.padEnd(width)}  ${v.observed}`;
    if (v.status !== 'deviates') return line;
    const evidence = (v.evidence ?? []).flatMap(evidenceLines).join(' | ');
    return `${line} — expected: ${v.expected}${evidence ? ` — evidence: ${evidence}` : ''}`;
  });
}

/** Counts per status, for the summary line. */
export function summary(verdicts: Verdict[]): string {
  const count = (s: Verdict['status']) => verdicts.filter((v) => v.status === s).length;
  return `${verdicts.length} rules: ${count('ok')} ok, ${count('deviates')} deviate, ${count('skipped')} skipped`;
}

/** `--json` (SPEC §7): `{ installation, rules: [{ id, status, expected, observed }] }`. */
export function reportJson(installation: string, verdicts: Verdict[]) {
  return {
    installation,
    rules: verdicts.map(({ id, status, expected, observed }) => ({
      id,
      status,
      expected,
      observed,
    })),
  };
}

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

/** `--junit FILE`: one testcase per rule; deviations are failures, skipped rules skipped. */
export function reportJunit(installation: string, verdicts: Verdict[]): string {
  const failures = verdicts.filter((v) => v.status === 'deviates').length;
  const skipped = verdicts.filter((v) => v.status === 'skipped').length;
  const cases = verdicts.map((v) => {
    const head = `    <testcase classname="dasvc.check" name="${xml(v.id)}">`;
    if (v.status === 'ok')
      return `${head}\n      <system-out>${xml(v.observed)}</system-out>\n    </testcase>`;
    if (v.status === 'skipped')
      return `${head}\n      <skipped message="${xml(v.observed)}"/>\n    </testcase>`;
    const evidence = (v.evidence ?? []).flatMap(evidenceLines).join('\n');
    const body = `expected: ${v.expected}\nobserved: ${v.observed}${evidence ? `\n${evidence}` : ''}`;
    return `${head}\n      <failure message="${xml(v.observed)}" type="deviates">${xml(body)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dasvc check" tests="${verdicts.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="${xml(installation)}" tests="${verdicts.length}" failures="${failures}" skipped="${skipped}" errors="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The quirks file of a run (`--save-quirks`, SPEC §7): the quirks of the deviations, in the order
 * of the SPEC §7 table; `{}` when nothing a quirk expresses deviated. A value the mock would refuse
 * (a token path it keeps for itself) is left out, so that the file always loads.
 */
export function quirksOf(verdicts: Verdict[]): Quirks {
  const merged: Record<string, unknown> = {};
  for (const v of verdicts) if (v.status === 'deviates' && v.quirk) Object.assign(merged, v.quirk);
  const ordered: Record<string, unknown> = {};
  for (const name of QUIRK_MEMBERS) {
    if (!(name in merged)) continue;
    try {
      parseQuirks({ [name]: merged[name] });
      ordered[name] = merged[name];
    } catch {
      // not expressible in the mock
    }
  }
  return ordered as Quirks;
}
