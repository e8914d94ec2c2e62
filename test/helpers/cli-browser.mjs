#!/usr/bin/env node
/* global URLSearchParams */
// Stand-in browser for `dasvc login` tests, named by BROWSER/DASVC_BROWSER and run with the
// authorization URL as its one argument. It follows the mock's redirect to the loopback like a
// browser would, without rendering anything; on a consent page (a mock without autoApprove) it
// posts the form as alice first. Variants (env):
//   STANDIN_MODE=follow   (default) GET the authorization URL, approve on a consent page, follow Location
//   STANDIN_MODE=deny     GET the consent page, POST its form with decision=deny, follow Location
//   STANDIN_MODE=forge    follow, but replace the state in the redirect with a forged one
//   STANDIN_MODE=favicon  GET /favicon.ico on the loopback first, then follow
//   STANDIN_MODE=none     do nothing (timeout tests)
//   STANDIN_LOG=<file>    append what happened (the CLI ignores our stdio)
// In-process CLI runs (runCli) call `standIn` directly instead of spawning this file: the same
// browser without a Node start-up per login (~140 of them in the suite).
import { appendFileSync } from 'node:fs';
import { request } from 'node:http';
import { pathToFileURL } from 'node:url';

/**
 * A small fetch over node:http (the mock and the loopback are plain http on 127.0.0.1): Node's
 * global fetch loads undici, ~45 ms of every stand-in browser's start, paid at each test login.
 */
function fetch(target, init = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(target),
      { method: init.method ?? 'GET', headers: init.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            headers: { get: (name) => res.headers[name.toLowerCase()] ?? null },
            text: async () => body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** What the stand-in does with the authorization URL, as STANDIN_MODE and STANDIN_LOG in `env` say. */
export async function standIn(url, env) {
  const mode = env.STANDIN_MODE ?? 'follow';
  const log = (line) => env.STANDIN_LOG && appendFileSync(env.STANDIN_LOG, `${line}\n`);
  log(`opened ${url}`);
  try {
    await visit(url, mode, log);
  } catch (error) {
    log(`error ${error.message}`);
  }
}

/**
 * The consent page's form answered as alice, Deny in deny mode and Approve otherwise: where to post
 * it and its body; null when the page has no form.
 */
export function consentForm(url, html, mode) {
  const action = /<form[^>]*action="([^"]*)"/i.exec(html)?.[1];
  if (!action) return null;
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(match[0])?.[1];
    const value = /value="([^"]*)"/.exec(match[0])?.[1] ?? '';
    if (name)
      form.set(
        name,
        value
          .replace(/&amp;/g, '&')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>'),
      );
  }
  form.set('user', 'alice');
  form.set('decision', mode === 'deny' ? 'deny' : 'approve');
  return { action: new URL(action.replace(/&amp;/g, '&'), url).href, body: form.toString() };
}

/**
 * Where the service sends the browser once alice has answered (Approve unless `mode` is deny):
 * the redirect URL a person would paste.
 */
export async function redirectAfterConsent(url, mode = 'follow') {
  const first = await fetch(url);
  const location = first.headers.get('location');
  if (location) return location;
  const form = consentForm(url, await first.text(), mode);
  if (!form) return null;
  const answer = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.body,
  });
  return answer.headers.get('location');
}

async function visit(url, mode, log) {
  if (mode === 'none') return;
  const location = await redirectAfterConsent(url, mode);
  log(`location ${location ? 'received' : 'missing'}`);
  if (!location) return;
  const target = new URL(location);
  if (mode === 'forge')
    target.searchParams.set('state', 'forged-state-forged-state-forged-state-xyz');
  if (mode === 'favicon') {
    const icon = await fetch(new URL('/favicon.ico', target));
    log(`favicon ${icon.status}`);
  }
  const page = await fetch(target);
  const body = await page.text();
  log(`callback ${page.status} ${/Logged in/.test(body) ? 'success-page' : 'error-page'}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await standIn(process.argv[2], process.env);
}
