import type { Fixtures } from '../fixture-format/fixture-format.js';
import { escapeHtml } from '../../util/html.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}code{background:#eef1f4;padding:0 .25rem;border-radius:3px}
ul{padding-left:1.2rem}label{display:block;margin:1rem 0 .3rem;font-weight:600}
select{font-size:1rem;padding:.3rem;min-width:14rem}.actions{margin-top:1.5rem;display:flex;gap:.75rem}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button[value=approve]{background:#1f6feb;color:#fff;border-color:#1f6feb}
.error{background:#ffebe9;border:1px solid #ff8182;padding:.6rem .8rem;border-radius:6px}
.note{color:#57606a;font-size:.9rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** What the consent page shows and re-submits. */
export interface ConsentView {
  action: string;
  clientId: string;
  scopes: string[];
  /** The authorization request, carried as hidden fields. */
  hidden: [string, string][];
  error?: string;
  selectedUser?: string;
}

/** The consent page (SPEC §5): client, instances, a user picker, Approve / Deny. */
export function renderConsentPage(fixtures: Fixtures, view: ConsentView): string {
  const instances = view.scopes
    .map((s) => {
      const title = fixtures.instances.get(s)?.title ?? s;
      return `<li><code>${escapeHtml(s)}</code>${title === s ? '' : ` — ${escapeHtml(title)}`}</li>`;
    })
    .join('\n');
  const options = [...fixtures.users.values()]
    .map((u) => {
      const selected = u.id === view.selectedUser ? ' selected' : '';
      const reach = [...u.instances].join(', ') || 'no instances';
      return `<option value="${escapeHtml(u.id)}"${selected}>${escapeHtml(u.name)} (${escapeHtml(u.id)}; ${escapeHtml(reach)})</option>`;
    })
    .join('\n');
  const hidden = view.hidden
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n');
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  return page(
    `Authorize ${view.clientId} — dasvc mock`,
    `<h1>Authorize <code>${escapeHtml(view.clientId)}</code></h1>
${error}
<p>The application <strong>${escapeHtml(view.clientId)}</strong> asks to access these instances on your behalf:</p>
<ul>
${instances}
</ul>
<form method="post" action="${escapeHtml(view.action)}">
${hidden}
<label for="user">Sign in as</label>
<select id="user" name="user">
${options}
</select>
<div class="actions">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="note">dasvc mock: a local stand-in for the Delegated Access Service. No password is asked.</p>`,
  );
}

/** Why an error page is not redirected: the reasons RFC 6749 §4.1.2.1 and the mock keep to. */
const NOT_REDIRECTED = {
  untrusted: 'its client or redirect URI could not be trusted',
  unechoable: 'a parameter it would carry back could not be sent unchanged',
  unreadable: 'a parameter of it could not be read',
  foreign: 'the consent form was not sent from the consent page of this mock',
} as const;
export type NotRedirected = keyof typeof NOT_REDIRECTED;

/** An authorization error that must not be redirected, saying why (`because`). */
export function renderErrorPage(
  error: string,
  description: string,
  because: NotRedirected = 'untrusted',
): string {
  return page(
    'Authorization error — dasvc mock',
    `<h1>Authorization error</h1>
<p class="error" role="alert"><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p>
<p class="note">The request was not redirected back to the application because ${NOT_REDIRECTED[because]}.</p>`,
  );
}
