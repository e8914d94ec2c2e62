import { namesOf, textOf, type HintRule } from './facts.js';

/**
 * `dasvc mock` (src/mock/): its fixtures folder, quirks, state file, users and address, in the
 * words of its flags.
 */
export const mockHint: HintRule = (code, facts) => {
  // The mock's listener is the one whose host is chosen (the login's is 127.0.0.1).
  if (code === 'listen_failed' && textOf(facts.host) !== undefined)
    return 'choose another --port (0 picks a free one) or --host';
  switch (code) {
    case 'bad_fixture': {
      // A file of the fixtures folder, or of the folder --record adds to (what `dasvc types
      // --from` reads has its own hint).
      const folder = textOf(facts.folder);
      if (folder !== undefined && facts.absent === true)
        return "check the path given to --fixtures; without it the mock serves the package's own";
      if (folder !== undefined)
        return `fix the file or point --fixtures at another folder (now ${folder})`;
      const record = textOf(facts.record);
      return record === undefined
        ? undefined
        : `recording adds to what ${record} holds: fix the file, or pass --record a new folder`;
    }
    case 'bad_record_dir':
      return textOf(facts.record) === undefined
        ? undefined
        : 'pass --record a folder this user can create and write, or a new path';
    case 'bad_quirks': {
      const members = namesOf(facts.members);
      return members.length === 0 ? undefined : `members: ${members.join(', ')}`;
    }
    case 'bad_state_file':
      return facts.corrupt === true
        ? 'it was left untouched; move it away or pass another --state-file'
        : undefined;
    case 'unknown_user': {
      const users = namesOf(facts.users);
      return users.length === 0 ? undefined : `users in the fixtures: ${users.join(', ')}`;
    }
    default:
      return undefined;
  }
};
