import type { ServiceOptions } from '../../service-options.js';
import { fileProblem } from '../../../util/file-problem.js';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { NetworkError, ServiceError, UsageError } from '../../../errors.js';
import type { InstanceFixture } from '../../../mock/fixture-format/fixture-format.js';
import { buildCall, rpcErrorFrom } from '../../../rpc/jsonrpc.js';
import { instanceOfDocument, instancesFrom } from '../../../typegen/contract-sources.js';
import { contractChanges, type ContractChange } from '../../../typegen/declarations-diff.js';
import { declarationsOf } from '../../../typegen/declarations.js';
import { makeFolders } from '../../../util/make-folders.js';
import { openClient, type CliDeps } from '../../context.js';
import { answeredWith } from '../../output.js';
import { shellWord } from '../../shell-word.js';
import { withTokenWayIn } from '../../hints/token-way-in.js';
import { readRegularFile } from '../../../util/regular-file.js';

/** Options of `dasvc types` (SPEC §10): the scopes and the flags. */
export interface TypesOptions extends ServiceOptions {
  scopes: string[];
  from?: string;
  out?: string;
  check?: string;
  token?: string;
}

/**
 * `dasvc types` (SPEC §10): the contract of each instance — the installation's `rpc.discover`
 * through the profile, as `dasvc rpc` calls it, or `--from` a document or folder — as TypeScript
 * declarations on stdout, in `--out FILE`, or compared with `--check FILE`.
 */
export async function run(options: TypesOptions, deps: CliDeps): Promise<void> {
  if (options.out !== undefined && options.check !== undefined) {
    throw new UsageError('--check compares a file and --out writes one: give one of them', {
      code: 'bad_flags',
    });
  }
  if (options.check !== undefined) readDeclarations(options.check);
  const instances =
    options.from === undefined
      ? await instancesAt(options, deps)
      : instancesFrom(options.from, options.scopes);
  const text = await declarationsOf(instances);
  if (options.check !== undefined) return check(options.check, text, options, deps);
  const methods = instances.reduce((n, i) => n + i.methods.size, 0);
  const what = `${plural(instances.length, 'instance')}, ${plural(methods, 'method')}`;
  if (options.out === undefined) {
    if (deps.out.json) deps.out.result({ declarations: text });
    else deps.out.stdout.write(text);
    return;
  }
  const written = writeDeclarations(options.out, text);
  if (deps.out.json)
    deps.out.result({ out: options.out, written, instances: instances.length, methods });
  else if (written) deps.out.success(`wrote ${options.out}: ${what}`);
  else deps.out.success(`${options.out} is up to date: ${what}`);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The instances' documents from the installation: `rpc.discover` on each scope (SPEC §3). */
async function instancesAt(options: TypesOptions, deps: CliDeps): Promise<InstanceFixture[]> {
  // The positional scopes are the instances asked, not the scope setting of a login.
  const client = openClient({ ...options, scope: undefined }, deps);
  const scopes =
    options.scopes.length > 0
      ? options.scopes
      : (client.settings().value('scope')?.split(' ').filter(Boolean) ?? []);
  if (scopes.length === 0) {
    throw new UsageError('name the instances to declare: dasvc types <scope...>', {
      code: 'missing_scope',
      hint: 'or log in with --scope, set DASVC_SCOPE, or read a contract with --from PATH',
    });
  }
  const instances: InstanceFixture[] = [];
  for (const scope of new Set(scopes)) {
    const answer = await client
      .send(scope, buildCall('rpc.discover', undefined, 1))
      .catch((error: unknown) => {
        throw withTokenWayIn(error);
      });
    const body = answer.kind === 'none' ? undefined : answer.body;
    const refused = rpcErrorFrom(
      body,
      `record the contract instead (dasvc mock --proxy URL --record DIR) and run dasvc types --from DIR`,
    );
    if (refused) throw refused;
    const document = (body as { result?: unknown } | undefined)?.result;
    instances.push(
      instanceOfDocument(scope, document, (problem) => {
        throw new NetworkError(
          `the rpc.discover answer of ${scope} is not an OpenRPC document: ${problem}`,
          { code: 'unexpected_response' },
        );
      }),
    );
  }
  return instances;
}

/**
 * The text of the file `--check` compares, or undefined when there is no such file (then every
 * instance is new); a file that cannot be read (a folder, no permission) is a usage error.
 */
function readDeclarations(file: string): string | undefined {
  try {
    return readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`--check: cannot read ${file}: ${fileProblem(error)}`, {
      code: 'unreadable_file',
    });
  }
}

/** Writes the file unless it holds the same text already (its time stays, for build tools). */
function writeDeclarations(file: string, text: string): boolean {
  try {
    if (existsSync(file) && statSync(file).isFile() && readFileSync(file, 'utf8') === text)
      return false;
    makeFolders(dirname(resolve(file)));
    writeFileSync(file, text);
    return true;
  } catch (error) {
    throw new UsageError(`--out: cannot write ${file}: ${(error as Error).message}`, {
      code: 'unwritable_file',
      cause: error,
    });
  }
}

/** The line of one change, as `--check` lists them. */
function changeLine(change: ContractChange): string {
  if (change.method === undefined)
    return change.change === 'description'
      ? `${change.scope}: description changed`
      : `${change.scope}: instance ${change.change}`;
  if (change.change === 'added' || change.change === 'removed')
    return `${change.scope}: method ${change.method} ${change.change}`;
  return `${change.scope} ${change.method}: ${change.change} changed`;
}

/**
 * `--check FILE` (SPEC §10): exit 0 when FILE is what the contract gives now (line endings
 * aside: a checkout may have turned them into CRLF), else list what changed and exit 1. A FILE
 * that does not exist differs from every contract: its instances are all added (a CI job that
 * checks declarations never written fails as one whose declarations drifted).
 */
function check(file: string, text: string, options: TypesOptions, deps: CliDeps): void {
  const read = readDeclarations(file);
  const before = read?.replace(/\r\n/g, '\n') ?? '';
  const changes = before === text ? [] : contractChanges(before, text);
  const verdict = { file, upToDate: before === text, changes };
  if (before === text) {
    if (deps.out.json) deps.out.result(verdict);
    deps.out.success(`${file} matches the contract`);
    return;
  }
  if (!deps.out.json) {
    for (const change of changes) deps.out.line(changeLine(change));
    if (changes.length === 0) deps.out.line('descriptions or layout changed');
  }
  // Under --json, the verdict carries the failure as its `error` member (SPEC §4).
  throw answeredWith(
    read === undefined
      ? new ServiceError(`${file} does not exist`, {
          code: 'types_changed',
          hint: `write it: ${regenerate(file, options)}`,
        })
      : new ServiceError(
          `${file} is out of date with the contract${changes.length === 0 ? '' : ` (${plural(changes.length, 'change')})`}`,
          { code: 'types_changed', hint: `regenerate it: ${regenerate(file, options)}` },
        ),
    verdict,
  );
}

/** The command that writes FILE anew: this one, with `--out` for `--check`. */
function regenerate(file: string, options: TypesOptions): string {
  const words = ['dasvc types', ...options.scopes.map(shellWord)];
  if (options.from !== undefined) words.push('--from', shellWord(options.from));
  words.push('--out', shellWord(file));
  return words.join(' ');
}
