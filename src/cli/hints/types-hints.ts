import { namesOf, textOf, type HintRule } from './facts.js';

/** What `dasvc types --from` reads. */
const SOURCES =
  'an OpenRPC document, a fixtures folder, or a folder written by dasvc mock --record';

/** `dasvc types` (src/typegen/): where it reads a contract, and the generator it needs. */
export const typesHint: HintRule = (code, facts) => {
  const from = textOf(facts.from);
  if (code === 'bad_fixture' && from !== undefined)
    return facts.exists === false
      ? `give ${SOURCES}`
      : 'fix the file or point --from at another document or folder';
  if (code === 'bad_scope' && from !== undefined) {
    if (Array.isArray(facts.instances))
      return `its instances: ${namesOf(facts.instances).join(', ') || 'none'}`;
    if (facts.unnamed === true) return `name it: dasvc types SCOPE --from ${from}`;
  }
  if (code === 'generator_missing') {
    const name = textOf(facts.package);
    return name === undefined ? undefined : `npm install -D ${name}`;
  }
  return undefined;
};
