// The dashboard's markup and style (SPEC §8), served as is: no build step, no third-party
// resource. Nothing here is filled in from requests; the script (dashboard-script.ts) renders
// every value from the control endpoints as text nodes.

export const DASHBOARD_STYLE = `
:root { color-scheme: light dark; --bg: #fbfbfd; --fg: #1b1d22; --muted: #5a606b; --line: #d6d9e0;
  --panel: #ffffff; --accent: #2457c5; --ok: #17692f; --redirect: #205f86; --warn: #8a4b00;
  --bad: #b3261e; --bad-bg: #fdecea; --focus: #c24e00; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171c; --fg: #e6e8ee; --muted: #a2a9b6; --line: #353a45; --panel: #1d2027;
    --accent: #8fb0ff; --ok: #6fd08c; --redirect: #79c3ef; --warn: #f2b65c; --bad: #ff8a80;
    --bad-bg: #3a1f1f; --focus: #ffb15c; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center;
  padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 1.15rem; margin: 0; }
h2 { font-size: 1rem; margin: 0 0 .5rem; }
main { display: grid; gap: 1rem; padding: 1rem 1.25rem; grid-template-columns: minmax(0, 1fr);
  align-items: start; }
.side { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr));
  align-items: start; }
@media (min-width: 1600px) { main { grid-template-columns: minmax(0, 1fr) 26rem; }
  .side { grid-template-columns: minmax(0, 1fr); } }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: .75rem 1rem; min-width: 0; }
.scroll { overflow: auto; max-height: 70vh; }
#journal-panel .scroll { max-height: max(18rem, calc(100vh - 13.25rem)); }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { position: sticky; top: 0; background: var(--panel); font-weight: 600; z-index: 1; }
#journal-table { table-layout: fixed; font-size: .85rem; min-width: 60rem; }
#journal-table th, #journal-table td { padding: .2rem .45rem; }
#journal tr.entry td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
col.time { width: 7.9rem; } col.req { width: 30%; } col.status { width: 4.4rem; }
col.ms { width: 3.6rem; } col.rpc { width: 8rem; } col.user { width: 4.4rem; }
col.client { width: 6.6rem; }
td.ms { text-align: right; font-variant-numeric: tabular-nums; }
td.req .method { font-weight: 600; }
td.req .body { color: var(--muted); margin-left: .6rem; }
button.toggle { border: 0; background: none; color: inherit; padding: 0; border-radius: 3px;
  font: inherit; cursor: pointer; }
button.toggle::before { content: '▸'; display: inline-block; width: 1em; color: var(--muted); }
button.toggle[aria-expanded="true"]::before { content: '▾'; }
#journal tr.entry { cursor: pointer; }
#journal tr.entry:hover td { background: color-mix(in srgb, var(--accent) 7%, transparent); }
tr.detail td { background: var(--bg); padding: .5rem .75rem .6rem 2rem; }
tr.detail dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .2rem 1rem;
  margin: 0; }
tr.detail dt { color: var(--muted); }
tr.detail dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
tr.detail dd.mono { font-size: .8rem; }
header label { flex-direction: row; align-items: center; font-size: .9rem; }
code, .mono, td.req, td.time, td.rpc { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
td.req, td.time, td.rpc { font-size: .8rem; }
tr.refused td.reason { color: var(--bad); font-weight: 600; }
tr.refused td { background: var(--bad-bg); }
.s2 { color: var(--ok); } .s3 { color: var(--redirect); } .s4 { color: var(--warn); }
.s5, .s0 { color: var(--bad); }
td.status { font-weight: 700; }
.muted { color: var(--muted); }
form, .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .5rem 0; }
label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .15rem; }
.field { display: flex; flex-direction: column; gap: .15rem; }
input, select, button { font: inherit; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; padding: .3rem .55rem; }
input { width: 7.5rem; }
input[type="search"] { width: 16rem; }
button { cursor: pointer; background: var(--panel); border-color: var(--accent); color: var(--accent); }
button.danger { border-color: var(--bad); color: var(--bad); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
ul { margin: .25rem 0; padding-left: 1.25rem; }
#status { min-height: 1.4em; font-size: .9rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
`;

/**
 * The page around the style and the script (hashes of both go in its CSP). Its lines are not
 * indented: the page ships as written, and whitespace between its elements shows nothing.
 */
export function dashboardHtml(style: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>dasvc mock dashboard</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>dasvc mock</h1>
<div><span class="muted">Virtual clock</span> <time id="clock-now" class="mono">…</time>
<span id="clock-offset" class="muted"></span></div>
<form id="advance-form" aria-label="Advance the virtual clock">
<label for="advance-by">Advance by</label>
<input id="advance-by" name="advance" required placeholder="1h" value="1h"
aria-describedby="advance-help">
<span id="advance-help" class="sr-only">A duration such as 90s, 15m, 1h or 30d</span>
<button type="submit">Advance</button>
</form>
<button type="button" id="reset" class="danger">Reset mock</button>
<p id="status" role="status" aria-live="polite"></p>
</header>
<main>
<section id="journal-panel" aria-labelledby="journal-title">
<h2 id="journal-title">Requests <span id="journal-count" class="muted"></span></h2>
<div class="row">
<div class="field"><label for="journal-filter">Show</label><select id="journal-filter">
<option value="all">all requests</option>
<option value="refused">refusals only</option>
</select></div>
<div class="field"><label for="journal-find">Find</label><input id="journal-find"
type="search" autocomplete="off" placeholder="path, method, user, client, code…"
aria-describedby="journal-help"></div>
<button type="button" id="journal-clear">Clear journal</button>
<span id="journal-help" class="muted">One line a request. Click a row, or Enter on it, for
the whole of it; arrow keys move between rows.</span>
</div>
<div class="scroll" role="region" aria-label="Request journal, newest first">
<table id="journal-table">
<caption class="sr-only">Requests the mock answered, newest first, with the reason of each refusal</caption>
<colgroup><col class="time"><col class="req"><col class="status"><col class="ms"><col class="rpc">
<col class="user"><col class="client"><col class="reason"></colgroup>
<thead><tr><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th>
<th scope="col">ms</th><th scope="col">RPC</th><th scope="col">User</th>
<th scope="col">Client</th><th scope="col">Reason</th></tr></thead>
<tbody id="journal"></tbody>
</table>
</div>
</section>
<div class="side">
<section aria-labelledby="grants-title">
<h2 id="grants-title" tabindex="-1">Grants</h2>
<div class="scroll">
<table>
<caption class="sr-only">Authorizations with a live token; expiry on the virtual clock</caption>
<thead><tr><th scope="col">User</th><th scope="col">Client</th><th scope="col">Scope</th>
<th scope="col">Access token</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
<tbody id="grants"></tbody>
</table>
</div>
<p id="grants-empty" class="muted">No grants.</p>
</section>
<section aria-labelledby="faults-title">
<h2 id="faults-title">Faults</h2>
<ul id="faults"></ul>
<p id="faults-empty" class="muted">No faults pending.</p>
<form id="fault-form" aria-label="Add a fault">
<label for="fault-kind">Kind<select id="fault-kind" name="kind">
<option value="error">HTTP error</option><option value="latency">latency</option>
<option value="drop">dropped connection</option></select></label>
<label for="fault-count">Next N requests<input id="fault-count" name="count" type="number"
min="1" value="1" required></label>
<label for="fault-status">Status<input id="fault-status" name="status" type="number"
min="400" max="599" value="500"></label>
<label for="fault-ms">Latency ms<input id="fault-ms" name="ms" type="number" min="0"
value="1000"></label>
<label for="fault-path">Path prefix<input id="fault-path" name="path" placeholder="/webservice/json/"></label>
<button type="submit">Add fault</button>
</form>
<button type="button" id="faults-clear">Clear faults</button>
</section>
<section aria-labelledby="quirks-title">
<h2 id="quirks-title">Quirks in force</h2>
<ul id="quirks"></ul>
<p id="quirks-empty" class="muted">None: the mock answers as documented.</p>
</section>
</div>
</main>
<noscript><p>The dashboard needs JavaScript; the JSON endpoints under /_mock/ work without it.</p></noscript>
<script>${script}</script>
</body>
</html>
`;
}
