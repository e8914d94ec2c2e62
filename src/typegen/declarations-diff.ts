// What changed between two files of declarations written by `dasvc types` (`--check`): instances
// and methods added or removed, params, results or errors changed, or only their descriptions.
// Pure. It reads the layout the
// generator and prettier give (members of an interface two spaces in, theirs four), so it
// compares files written by dasvc, not declarations edited by hand.
import { API_NAME } from './api-schema.js';

/** One change, by scope and (but for an instance added or removed) method. */
export interface ContractChange {
  scope: string;
  method?: string;
  /** `description`: only what its comments say changed (of the method, or of the instance). */
  change: 'added' | 'removed' | 'params' | 'result' | 'errors' | 'description';
}

/** The top-level declarations of a file, by name: their text, doc comments included. */
function declarations(text: string): Map<string, string> {
  const found = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  let doc: string[] = [];
  const flush = () => {
    if (name !== undefined) found.set(name, lines.join('\n'));
    name = undefined;
    lines = [];
  };
  for (const line of text.split('\n')) {
    const start = /^export (?:interface|type) ([A-Za-z_$][\w$]*)/.exec(line);
    if (start) {
      flush();
      name = start[1]!;
      lines = [...doc, line];
      doc = [];
    } else if (line.startsWith('/**')) {
      // A doc comment at the top level belongs to the declaration after it.
      flush();
      doc = [line];
    } else if (name === undefined) {
      if (doc.length > 0) doc.push(line);
    } else lines.push(line);
  }
  flush();
  return found;
}

const KEY = String.raw`(?:[A-Za-z_$][\w$]*|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`;

/**
 * The members of an interface or type literal whose members are `indent` spaces in: by key as
 * written (quoted or not), each with its lines, its doc comment included.
 */
function members(lines: readonly string[], indent: number): Map<string, string[]> {
  const pad = ' '.repeat(indent);
  const keyLine = new RegExp(`^${pad}(${KEY})\\??:`);
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  let pendingDoc: string[] | undefined;
  for (const line of lines) {
    const key = keyLine.exec(line)?.[1];
    if (key !== undefined) {
      current = [...(pendingDoc ?? []), line];
      pendingDoc = undefined;
      found.set(key, current);
    } else if (line.startsWith(`${pad}/**`)) {
      pendingDoc = [line];
      current = undefined;
    } else if (pendingDoc) pendingDoc.push(line);
    else current?.push(line);
  }
  return found;
}

/** A method name or scope as written as a key: quoted keys read back, bare ones as they are. */
function keyText(key: string): string {
  // prettier quotes with ' a name holding more " than ': as JSON, with the quotes swapped.
  const json = key.startsWith("'")
    ? `"${key.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`
    : key;
  if (!json.startsWith('"')) return key;
  try {
    return JSON.parse(json) as string;
  } catch {
    return key;
  }
}

/**
 * Text without its comments (block comments, and lines that are a `//` comment, such as a note
 * added by hand): what the types say, not how they are described.
 */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('//'))
    .join('\n');
}

/** Text without the lines that are a `//` comment (a note added by hand), doc comments kept. */
function withoutNotes(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
}

/**
 * `text` and every declaration it names, directly or through others, each seen through `view`
 * (which also decides what names count).
 */
function withNamed(text: string, named: Map<string, string>, view: (t: string) => string): string {
  const reached = new Set<string>();
  const visit = (t: string) => {
    for (const id of view(t).match(/[A-Za-z_$][\w$]*/g) ?? []) {
      if (named.has(id) && !reached.has(id)) {
        reached.add(id);
        visit(named.get(id)!);
      }
    }
  };
  visit(text);
  return [text, ...[...reached].sort().map((id) => named.get(id)!)].map(view).join('\n');
}

/**
 * What a part of a method means: its own code and that of every declaration it names (a result
 * typed `Contact` changes when `Contact` does, or when it is renamed).
 */
function meaning(text: string, named: Map<string, string>): string {
  return withNamed(text, named, code);
}

/** What a method says, doc comments included: its text and every declaration it names. */
function described(text: string, named: Map<string, string>): string {
  return withNamed(text, named, withoutNotes);
}

interface Parsed {
  /** Methods by scope, each method's parts (params, result, errors) by name. */
  scopes: Map<string, Map<string, Map<string, string>>>;
  /** Each scope's text and every declaration it names, comments included; each method's too. */
  documented: Map<string, { scope: string; methods: Map<string, string> }>;
  named: Map<string, string>;
}

function parse(text: string): Parsed {
  const named = declarations(text.replace(/\r\n/g, '\n'));
  const scopes: Parsed['scopes'] = new Map();
  const documented: Parsed['documented'] = new Map();
  const api = named.get(API_NAME);
  if (api === undefined) return { scopes, documented, named };
  for (const [scopeKey, lines] of members(api.split('\n'), 2)) {
    const typeName = /:\s*([A-Za-z_$][\w$]*);/.exec(lines.join(' '))?.[1];
    const methods = new Map<string, Map<string, string>>();
    const texts = new Map<string, string>();
    const body = typeName === undefined ? undefined : named.get(typeName);
    for (const [methodKey, methodLines] of members(body?.split('\n') ?? [], 2)) {
      const parts = new Map<string, string>();
      for (const [part, partLines] of members(methodLines, 4)) {
        parts.set(part, partLines.join('\n'));
      }
      methods.set(keyText(methodKey), parts);
      texts.set(keyText(methodKey), described(methodLines.join('\n'), named));
    }
    scopes.set(keyText(scopeKey), methods);
    // The instance's own comments: those of its interface, less its methods'.
    const own = (body ?? '').split('\n').filter((line) => /^(\/\*\*| \*|export )/.test(line));
    // The interface's closing brace (and the blank line after it) follow its last member.
    const member = lines.filter((line) => line !== '}' && line.trim() !== '');
    documented.set(keyText(scopeKey), { scope: [...member, ...own].join('\n'), methods: texts });
  }
  return { scopes, documented, named };
}

/**
 * The changes from `before` (the file) to `after` (what the contract gives now), instances and
 * methods in name order. Empty when they differ only in comments or layout.
 */
export function contractChanges(before: string, after: string): ContractChange[] {
  const old = parse(before);
  const now = parse(after);
  const changes: ContractChange[] = [];
  const scopes = [...new Set([...old.scopes.keys(), ...now.scopes.keys()])].sort();
  for (const scope of scopes) {
    const was = old.scopes.get(scope);
    const is = now.scopes.get(scope);
    if (!was || !is) {
      changes.push({ scope, change: was ? 'removed' : 'added' });
      continue;
    }
    const wasDoc = old.documented.get(scope)!;
    const isDoc = now.documented.get(scope)!;
    if (wasDoc.scope !== isDoc.scope) changes.push({ scope, change: 'description' });
    const methods = [...new Set([...was.keys(), ...is.keys()])].sort();
    for (const method of methods) {
      const before = was.get(method);
      const after = is.get(method);
      if (!before || !after) {
        changes.push({ scope, method, change: before ? 'removed' : 'added' });
        continue;
      }
      const count = changes.length;
      for (const part of ['params', 'result', 'errors'] as const) {
        const a = before.get(part) ?? '';
        const b = after.get(part) ?? '';
        if (meaning(a, old.named) !== meaning(b, now.named))
          changes.push({ scope, method, change: part });
      }
      if (changes.length === count && wasDoc.methods.get(method) !== isDoc.methods.get(method))
        changes.push({ scope, method, change: 'description' });
    }
  }
  return changes;
}
