/** Elements whose content is never read as text. */
const HIDDEN = new Set(['script', 'style', 'template', 'noscript', 'svg', 'title']);

/** Elements that start a new line of text where they open or close. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'button',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'label',
  'li',
  'main',
  'nav',
  'ol',
  'option',
  'p',
  'pre',
  'section',
  'select',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Decodes the entities a page's text commonly holds; others stay as written. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const point =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/**
 * What a person reads on an HTML page: its `<title>` and the text of its body, one line per block
 * (heading, paragraph, list item), whitespace collapsed, scripts and styles left out. One pass over
 * the text, so a hostile page costs time in proportion to its size.
 */
export function pageText(html: string): { title: string; lines: string[] } {
  const lower = html.toLowerCase();
  let title = '';
  let text = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      text += html.slice(at);
      break;
    }
    text += html.slice(at, open);
    // A `<` that starts no tag is text, as a browser shows it.
    if (!/[a-z/!]/.test(lower[open + 1] ?? '')) {
      text += '<';
      at = open + 1;
      continue;
    }
    if (lower.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    const close = html.indexOf('>', open + 1);
    if (close === -1) break;
    const name = /^<\/?([a-z][a-z0-9]*)/.exec(lower.slice(open, Math.min(close, open + 20)))?.[1];
    at = close + 1;
    if (name === undefined) continue;
    const closing = lower[open + 1] === '/';
    if (!closing && HIDDEN.has(name) && !lower.startsWith('/', close - 1)) {
      const end = lower.indexOf(`</${name}`, at);
      const content = html.slice(at, end === -1 ? html.length : end);
      if (name === 'title' && title === '') title = content;
      const after = end === -1 ? -1 : html.indexOf('>', end);
      at = after === -1 ? html.length : after + 1;
      continue;
    }
    if (BLOCK.has(name)) text += '\n';
  }
  const tidy = (s: string) => decodeEntities(s).replace(/\s+/g, ' ').trim();
  return {
    title: tidy(title),
    lines: text
      .split('\n')
      .map(tidy)
      .filter((line) => line !== ''),
  };
}
