// The documentation holds together: the README is a door (short, linking every guide and reference
// page), every relative link and anchor resolves, every design record is in the index, and no
// page cites documents users do not have or issue numbers.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_CITATION } from '../helpers/citations.js';
import { filesUnder } from '../helpers/files-under.js';

const ROOT = join(import.meta.dirname, '../..');

const PAGES = ['README.md', 'CONTRIBUTING.md', ...filesUnder('docs', '.md')];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
/** The text outside fenced code blocks, where links and headings are. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, title] of prose(read(page)).matchAll(/^#{1,6} (.*)$/gm)) {
    const base = title!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every relative link of a page: [text](target) and ![alt](target), outside code. */
function linksOf(page: string): string[] {
  return [...prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the documentation', () => {
  it('README.md is a door: at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('the README gives each runtime dependency and optional peer its job', () => {
    const manifest = JSON.parse(read('package.json')) as Record<string, Record<string, string>>;
    const names = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    const section = read('README.md').split('## Dependencies')[1]?.split('\n## ')[0] ?? '';
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    expect(names.filter((name) => !rows.some((row) => row.includes(`\`${name}\``)))).toEqual([]);
  });

  it('the README links every guide and reference page, and the service page', () => {
    const linked = new Set(linksOf('README.md').map((target) => target.split('#')[0]));
    const pages = [
      ...filesUnder('docs/guides', '.md'),
      ...filesUnder('docs/reference', '.md'),
      'docs/service.md',
      'docs/design/README.md',
      'CONTRIBUTING.md',
    ];
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('every relative link and anchor resolves', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of linksOf(page)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every file of this repository the pages name exists', () => {
    const missing = PAGES.flatMap((page) =>
      [...read(page).matchAll(/`((?:src|test|scripts|schema|fixtures|bin|docs)\/[^`\s<>…*{]+)`/g)]
        .map((m) => m[1]!.replace(/#.*$/, ''))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('the design index lists every record', () => {
    const listed = new Set(linksOf('docs/design/README.md'));
    const records = readdirSync(join(ROOT, 'docs/design')).filter(
      (name) => name.endsWith('.md') && name !== 'README.md',
    );
    expect(records.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('no page cites the contract, the interface document or an issue number', () => {
    const cited = PAGES.flatMap((page) =>
      read(page)
        .split('\n')
        .map((line, i) => ({ line, at: `${page}:${i + 1}` }))
        .filter(({ line }) => DOC_CITATION.test(line))
        .map(({ line, at }) => `${at}: ${line.trim().slice(0, 100)}`),
    );
    expect(cited).toEqual([]);
  });
});
