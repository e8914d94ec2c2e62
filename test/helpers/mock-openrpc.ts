/**
 * The rules of the OpenRPC 1.2.6 meta-schema (open-rpc/meta-schema, schema.json) that a document
 * served by `rpc.discover` must meet, checked without a JSON Schema library. Returns the problems.
 */
export function openRpcProblems(doc: unknown): string[] {
  const problems: string[] = [];
  const fail = (where: string, what: string) => problems.push(`${where}: ${what}`);
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const onlyKeys = (where: string, v: Record<string, unknown>, allowed: string[]) => {
    for (const key of Object.keys(v)) {
      if (!allowed.includes(key) && !key.startsWith('x-')) fail(where, `unknown field "${key}"`);
    }
  };
  const optionalType = (where: string, v: Record<string, unknown>, key: string, type: string) => {
    if (v[key] !== undefined && typeof v[key] !== type) fail(where, `"${key}" must be a ${type}`);
  };
  const isSchema = (v: unknown) => typeof v === 'boolean' || isObject(v);

  const contentDescriptor = (where: string, d: unknown): boolean | undefined => {
    if (!isObject(d)) return void fail(where, 'must be an object');
    if (typeof d.$ref === 'string' && Object.keys(d).length === 1) return undefined; // reference
    onlyKeys(where, d, ['name', 'description', 'summary', 'schema', 'required', 'deprecated']);
    if (typeof d.name !== 'string' || d.name === '')
      fail(where, '"name" must be a non-empty string');
    if (!('schema' in d)) fail(where, '"schema" is required');
    else if (!isSchema(d.schema)) fail(where, '"schema" must be a JSON Schema');
    optionalType(where, d, 'description', 'string');
    optionalType(where, d, 'summary', 'string');
    optionalType(where, d, 'required', 'boolean');
    optionalType(where, d, 'deprecated', 'boolean');
    return d.required === true;
  };

  if (!isObject(doc)) return ['document: must be an object'];
  onlyKeys('document', doc, ['openrpc', 'info', 'servers', 'methods', 'components']);
  if (typeof doc.openrpc !== 'string' || !/^1\.2\.\d+$/.test(doc.openrpc)) {
    fail('openrpc', 'must be a 1.2.x version string');
  }
  const info = doc.info;
  if (!isObject(info)) fail('info', 'is required');
  else {
    onlyKeys('info', info, [
      'title',
      'description',
      'termsOfService',
      'version',
      'contact',
      'license',
    ]);
    if (typeof info.title !== 'string') fail('info', '"title" must be a string');
    if (typeof info.version !== 'string') fail('info', '"version" must be a string');
    optionalType('info', info, 'description', 'string');
  }
  if (doc.servers !== undefined) {
    if (!Array.isArray(doc.servers)) fail('servers', 'must be an array');
    else {
      doc.servers.forEach((s: unknown, i) => {
        const where = `servers[${i}]`;
        if (!isObject(s)) return fail(where, 'must be an object');
        onlyKeys(where, s, ['url', 'name', 'description', 'summary', 'variables']);
        if (typeof s.url !== 'string' || !URL.canParse(s.url)) {
          fail(where, '"url" must be an absolute URI');
        }
        optionalType(where, s, 'name', 'string');
      });
    }
  }
  if (!Array.isArray(doc.methods)) {
    fail('methods', 'must be an array');
    return problems;
  }
  const names = new Set<string>();
  doc.methods.forEach((m: unknown, i) => {
    const where = `methods[${i}]`;
    if (!isObject(m)) return fail(where, 'must be an object');
    onlyKeys(where, m, [
      'name',
      'description',
      'summary',
      'servers',
      'tags',
      'paramStructure',
      'params',
      'result',
      'errors',
      'links',
      'examples',
      'deprecated',
      'externalDocs',
    ]);
    if (typeof m.name !== 'string' || m.name === '')
      fail(where, '"name" must be a non-empty string');
    else if (names.has(m.name)) fail(where, `method name "${m.name}" is not unique`);
    else names.add(m.name);
    optionalType(where, m, 'summary', 'string');
    optionalType(where, m, 'description', 'string');
    optionalType(where, m, 'deprecated', 'boolean');
    if (
      m.paramStructure !== undefined &&
      !['by-position', 'by-name', 'either'].includes(m.paramStructure as string)
    ) {
      fail(where, '"paramStructure" must be by-position, by-name or either');
    }
    if (!Array.isArray(m.params)) fail(where, '"params" must be an array');
    else {
      const paramNames = new Set<unknown>();
      let optionalSeen = false;
      m.params.forEach((p: unknown, j) => {
        const required = contentDescriptor(`${where}.params[${j}]`, p);
        const name = isObject(p) ? p.name : undefined;
        if (paramNames.has(name)) fail(`${where}.params[${j}]`, 'param name is not unique');
        paramNames.add(name);
        if (required === false) optionalSeen = true;
        else if (required === true && optionalSeen) {
          fail(`${where}.params[${j}]`, 'a required param comes after an optional one');
        }
      });
    }
    if (!('result' in m)) fail(where, '"result" is required');
    else contentDescriptor(`${where}.result`, m.result);
  });
  return problems;
}
