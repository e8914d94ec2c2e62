// The dashboard's script (SPEC §8), plain browser JavaScript sent as is. It polls the control
// endpoints (relative URLs, so a base path works too) and renders every value with text nodes
// only: client ids, methods, params and reasons are user input and never become markup.

import { JOURNAL_SCRIPT } from './dashboard-journal.js';

export const DASHBOARD_SCRIPT = `
'use strict';
const $ = (id) => document.getElementById(id);
// Rows shown: as many as the journal keeps (its size, told by each answer), up to RENDER_CAP: a
// --journal-size of a million would make a page no browser scrolls.
const RENDER_CAP = 5000;
const view = { after: 0, epoch: undefined, now: Date.now(), tick: 0, rows: 0, size: 1000, grants: '',
  picked: false };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  for (const child of children) {
    node.append(child instanceof Node ? child : child === undefined || child === null ? '' : String(child));
  }
  return node;
}

function say(text) { $('status').textContent = text; }

async function api(path, method, body) {
  const init = { method: method || 'GET', cache: 'no-store' };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const error = new Error((data && data.error_description) || 'HTTP ' + res.status);
    error.status = res.status;
    throw error;
  }
  return data;
}

${JOURNAL_SCRIPT}
function relative(iso) {
  const seconds = Math.round((Date.parse(iso) - view.now) / 1000);
  if (seconds <= 0) return 'expired';
  const units = [[86400, 'd'], [3600, 'h'], [60, 'min'], [1, 's']];
  for (const [size, unit] of units) if (seconds >= size) return 'in ' + Math.floor(seconds / size) + ' ' + unit;
  return 'in ' + seconds + ' s';
}

function showGrants(grants) {
  const body = $('grants');
  // Rebuilt only when what it shows changed: a rebuild moves a keyboard user's focus.
  const shown = JSON.stringify(grants.map((g) => [g.id, g.user, g.client, g.scopes,
    g.accessExpiresAt ? relative(g.accessExpiresAt) : null]));
  if (shown === view.grants) return;
  view.grants = shown;
  // A keyboard user's focus on a Revoke button stays on that grant's button, or (the grant gone,
  // e.g. revoked) moves to the next one, else to the heading.
  const had = document.activeElement;
  const focused = had && body.contains(had) ? had.getAttribute('data-grant') : null;
  const order = focused === null ? [] : [...body.querySelectorAll('[data-grant]')].map((b) => b.getAttribute('data-grant'));
  body.replaceChildren(...grants.map((g) => {
    const access = g.accessExpiresAt
      ? el('time', { datetime: g.accessExpiresAt, title: g.accessExpiresAt }, relative(g.accessExpiresAt))
      : el('span', { class: 'muted' }, 'expired or revoked');
    const button = el('button', { type: 'button', class: 'danger', 'data-grant': g.id,
      'aria-label': 'Revoke grant ' + g.id + ' of ' + g.user + ' for ' + g.client }, 'Revoke');
    button.addEventListener('click', () => revoke(g));
    return el('tr', { 'data-grant-row': g.id }, el('td', {}, g.user), el('td', {}, g.client),
      el('td', {}, g.scopes.join(' ')), el('td', {}, access), el('td', {}, button));
  }));
  $('grants-empty').hidden = grants.length > 0;
  if (focused === null) return;
  const buttons = [...body.querySelectorAll('[data-grant]')];
  const same = buttons.find((b) => b.getAttribute('data-grant') === focused);
  const later = order.slice(order.indexOf(focused) + 1);
  const next = same || buttons.find((b) => later.includes(b.getAttribute('data-grant'))) || buttons.at(-1);
  (next || $('grants-title')).focus({ preventScroll: true });
}

function showFaults(faults) {
  $('faults').replaceChildren(...faults.map((f) => el('li', {},
    f.kind + (f.kind === 'error' ? ' ' + f.status : '') + (f.kind === 'latency' ? ' ' + f.ms + ' ms' : '') +
    ' for the next ' + f.count + ' request' + (f.count === 1 ? '' : 's') + (f.path ? ' under ' + f.path : ''))));
  $('faults-empty').hidden = faults.length > 0;
}

function showQuirks(quirks) {
  const entries = quirks === null ? [] : Object.entries(quirks);
  $('quirks').replaceChildren(...entries.map(([name, value]) =>
    el('li', {}, el('code', {}, name), ': ' + JSON.stringify(value))));
  $('quirks-empty').textContent = quirks === null
    ? 'This mock has no quirks (no /_mock/quirks endpoint).'
    : 'None: the mock answers as documented.';
  $('quirks-empty').hidden = entries.length > 0;
}

function showClock(clock) {
  view.now = Date.parse(clock.now);
  $('clock-now').textContent = clock.now;
  $('clock-now').setAttribute('datetime', clock.now);
  $('clock-offset').textContent = clock.offsetSeconds ? '(+' + clock.offsetSeconds + ' s)' : '';
}

async function refreshState() {
  const quirks = api('quirks').catch((e) => (e.status === 404 ? null : Promise.reject(e)));
  const [clock, grants, faults, q] = await Promise.all([api('clock'), api('grants'), api('faults'), quirks]);
  showClock(clock);
  showGrants(grants.grants);
  showFaults(faults.faults);
  showQuirks(q);
}

async function poll() {
  try {
    const limit = view.epoch === undefined ? '&limit=' + RENDER_CAP : '';
    const data = await api('journal?after=' + view.after + limit);
    const changed = data.entries.length > 0 || data.epoch !== view.epoch;
    showJournal(data);
    if (changed || view.tick++ % 5 === 0) await refreshState();
    if ($('status').dataset.down) { delete $('status').dataset.down; say('Connected again.'); }
  } catch (error) {
    $('status').dataset.down = '1';
    say('Cannot reach the mock: ' + error.message);
  }
  setTimeout(poll, 1000);
}

async function act(work, done) {
  try {
    await work();
    say(done);
  } catch (error) {
    say('Failed: ' + error.message);
  }
  await refreshState().catch(() => undefined);
}

function revoke(g) {
  return act(() => api('grants/' + g.id, 'DELETE'), 'Revoked grant ' + g.id + ' of ' + g.user + ' for ' + g.client + '.');
}

$('advance-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const by = $('advance-by').value.trim();
  act(() => api('clock', 'POST', { advance: /^[0-9]+$/.test(by) ? Number(by) : by }), 'Clock advanced by ' + by + '.');
});

$('reset').addEventListener('click', () =>
  act(() => api('reset', 'POST', {}), 'Mock reset: tokens, codes, journal, faults and clock.'));

$('journal-clear').addEventListener('click', () => act(() => api('journal', 'DELETE'), 'Journal cleared.'));

$('fault-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const kind = $('fault-kind').value;
  const fault = { kind, count: Number($('fault-count').value) };
  if (kind === 'error') fault.status = Number($('fault-status').value);
  if (kind === 'latency') fault.ms = Number($('fault-ms').value);
  const path = $('fault-path').value.trim();
  if (path) fault.path = path;
  act(() => api('faults', 'POST', fault), 'Fault added.');
});

$('faults-clear').addEventListener('click', () => act(() => api('faults', 'DELETE'), 'Faults cleared.'));

poll();
`;
