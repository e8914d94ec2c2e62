// The dashboard's journal (SPEC §8), part of its script (dashboard-script.ts, whose `$`, `el`,
// `view` and RENDER_CAP it uses): one line per request, the whole of one under it on a click or
// Enter, the filters and their count, and the keyboard. Every value is a text node.
import { BODY_EXCERPT } from '../core/journal.js';

export const JOURNAL_SCRIPT = `
function statusClass(status) { return 's' + String(status).charAt(0); }

// The entry each journal row shows, for its details.
const entryOf = new WeakMap();
const filter = { refused: false, text: '' };

// A JSON-RPC error travels in a 200: the row shows its code, coloured as the refusal it is (as the
// log line paints it: a 4xx).
function rpcError(e) { return typeof e.code === 'number' && e.status >= 200 && e.status < 300; }

function statusCell(e) {
  if (rpcError(e)) {
    return el('td', { class: 'status s4 rpc-error', title: 'JSON-RPC error ' + e.code + ' in an HTTP ' + e.status + ' answer' }, e.code);
  }
  return el('td', { class: 'status ' + statusClass(e.status) }, e.status === 0 ? 'dropped' : e.status);
}

function journalRow(e) {
  const refused = e.code !== undefined;
  const target = e.path + (e.query ? '?' + e.query : '');
  const time = e.time.slice(11, 23);
  const toggle = el('button', { type: 'button', class: 'toggle', tabindex: '-1', 'aria-expanded': 'false',
    'aria-label': 'Details of ' + e.method + ' ' + e.path + ' at ' + time }, time);
  const request = el('td', { class: 'req' }, el('span', { class: 'method' }, e.method), ' ' + target);
  if (e.body !== undefined) request.append(el('span', { class: 'body' }, e.body));
  const row = el('tr', { class: refused ? 'entry refused' : 'entry', 'data-seq': e.seq },
    el('td', { class: 'time' }, toggle),
    request,
    statusCell(e),
    el('td', { class: 'ms' }, e.durationMs.toFixed(1)),
    el('td', { class: 'rpc' }, (e.rpc || []).join(', ')),
    el('td', {}, e.user),
    el('td', {}, e.client),
    el('td', { class: 'reason' }, refused ? e.code + ': ' + (e.reason || '') : (e.reason || '')));
  entryOf.set(row, e);
  row.hidden = !matches(row);
  return row;
}

// The whole of a request, under its row: everything the row cuts to one line.
function detailRow(row) {
  const e = entryOf.get(row);
  const items = [
    ['Time', e.time + ' (virtual clock)'],
    ['Request', e.method + ' ' + e.path + (e.query ? '?' + e.query : ''), 'mono'],
  ];
  if (e.body !== undefined) {
    items.push(['Body', e.body + (e.bodySize > ${BODY_EXCERPT} ? ' …' : ''), 'mono']);
    if (e.bodySize > ${BODY_EXCERPT}) items.push(['', 'The first ${BODY_EXCERPT} of ' + e.bodySize + ' bytes.']);
  }
  items.push(['Status', e.status === 0 ? 'dropped: no answer was sent'
    : 'HTTP ' + e.status + (rpcError(e) ? ', JSON-RPC error ' + e.code : '')]);
  items.push(['Duration', e.durationMs + ' ms']);
  if (e.rpc) items.push(['RPC', e.rpc.join(', '), 'mono']);
  if (e.user !== undefined) items.push(['User', e.user]);
  if (e.client !== undefined) items.push(['Client', e.client]);
  if (e.code !== undefined || e.reason !== undefined) {
    items.push(['Reason', e.code !== undefined ? e.code + ': ' + (e.reason || '') : e.reason]);
  }
  const list = el('dl');
  for (const [name, text, kind] of items) list.append(el('dt', {}, name), el('dd', kind ? { class: kind } : {}, text));
  return el('tr', { class: 'detail', id: 'request-' + e.seq }, el('td', { colspan: 8 }, list));
}

function detailOf(row) {
  const next = row.nextElementSibling;
  return next && next.classList.contains('detail') ? next : null;
}

function expand(row, open) {
  const button = row.querySelector('.toggle');
  let detail = detailOf(row);
  if (open && !detail) {
    detail = detailRow(row);
    row.after(detail);
    button.setAttribute('aria-controls', detail.id);
  }
  if (detail) detail.hidden = !open;
  button.setAttribute('aria-expanded', String(open));
}

// What Find looks in: the row's own text, less its time (a search for 404 means the status).
function searchText(e) {
  return [e.method, e.path, e.query, e.body, e.status, e.code, e.reason, e.user, e.client]
    .concat(e.rpc || []).join(' ').toLowerCase();
}

function matches(row) {
  if (filter.refused && !row.classList.contains('refused')) return false;
  return filter.text === '' || searchText(entryOf.get(row)).includes(filter.text);
}

// One row of the journal is in the Tab order (the current one): the newest, until the user picks
// one by click or arrow key. Arrow keys move between rows.
function current() { return $('journal').querySelector('.toggle[tabindex="0"]'); }

function makeCurrent(row) {
  const had = current();
  const button = row.querySelector('.toggle');
  if (had && had !== button) had.tabIndex = -1;
  button.tabIndex = 0;
  return button;
}

function keepCurrent() {
  const had = current();
  if (had && view.picked && !had.closest('tr').hidden) return;
  const first = $('journal').querySelector('tr.entry:not([hidden])');
  if (first) makeCurrent(first);
}

function nextRow(row, step) {
  let next = step > 0 ? row.nextElementSibling : row.previousElementSibling;
  while (next && (next.hidden || !next.classList.contains('entry'))) {
    next = step > 0 ? next.nextElementSibling : next.previousElementSibling;
  }
  return next;
}

function countShown() {
  const shown = $('journal').querySelectorAll('tr.entry:not([hidden])').length;
  const of = shown === view.rows ? String(shown) : shown + ' of ' + view.rows;
  $('journal-count').textContent = '(' + of + ' shown, journal keeps ' + view.size + ')';
}

function applyFilter() {
  for (const row of $('journal').querySelectorAll('tr.entry')) {
    row.hidden = !matches(row);
    const detail = detailOf(row);
    if (detail) detail.hidden = row.hidden || row.querySelector('.toggle').getAttribute('aria-expanded') !== 'true';
  }
  keepCurrent();
  countShown();
}

function dropOldest(body) {
  const last = body.lastElementChild;
  if (last.classList.contains('detail')) last.previousElementSibling.remove();
  last.remove();
}

function showJournal(data) {
  const body = $('journal');
  if (data.epoch !== view.epoch) {
    body.replaceChildren();
    view.rows = 0;
    view.epoch = data.epoch;
  }
  for (const entry of data.entries) {
    body.prepend(journalRow(entry));
    view.rows += 1;
  }
  view.size = data.size;
  while (view.rows > Math.min(view.size, RENDER_CAP)) { dropOldest(body); view.rows -= 1; }
  view.after = data.last;
  keepCurrent();
  countShown();
}

$('journal-filter').addEventListener('change', () => {
  filter.refused = $('journal-filter').value === 'refused';
  applyFilter();
});

$('journal-find').addEventListener('input', () => {
  filter.text = $('journal-find').value.trim().toLowerCase();
  applyFilter();
});

$('journal').addEventListener('click', (event) => {
  const row = event.target.closest('tr.entry');
  // A click that ends a text selection in the row selects; it does not fold the row.
  if (!row || (!event.target.closest('.toggle') && String(window.getSelection()))) return;
  const button = makeCurrent(row);
  view.picked = true;
  expand(row, button.getAttribute('aria-expanded') !== 'true');
  if (document.activeElement !== button) button.focus({ preventScroll: true });
});

$('journal').addEventListener('keydown', (event) => {
  const row = event.target.classList.contains('toggle') ? event.target.closest('tr') : null;
  if (!row) return;
  let next = null;
  if (event.key === 'ArrowDown') next = nextRow(row, 1);
  else if (event.key === 'ArrowUp') next = nextRow(row, -1);
  else if (event.key === 'Home') next = $('journal').querySelector('tr.entry:not([hidden])');
  else if (event.key === 'End') next = [...$('journal').querySelectorAll('tr.entry:not([hidden])')].at(-1);
  else if (event.key === 'Escape') { expand(row, false); }
  else return;
  event.preventDefault();
  if (!next) return;
  view.picked = true;
  makeCurrent(next).focus();
});
`;
