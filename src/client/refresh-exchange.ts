import type { HttpRequest, HttpResponse, SendFn } from '../http/types.js';
import type { TokenSet } from '../oauth/token-response.js';

/**
 * Sends a refresh and saves the rotated pair the moment the answer is whole: in the transport's
 * own callback when it offers one (`onAnswer`), else as soon as the answer resolves. The service
 * forgot the old pair when it answered, so nothing may come first. `read` checks the answer and
 * throws what it refuses. A pair the service gave that could not be saved is still returned, with
 * why (`unsaved`): it is the only pair there is.
 */
export async function exchangeAndSave(
  send: SendFn,
  request: HttpRequest,
  save: (tokens: TokenSet) => Promise<void>,
  read: (response: HttpResponse) => TokenSet,
): Promise<{ next: TokenSet; unsaved?: unknown }> {
  // An object, not two variables: they are set in a callback the compiler cannot follow.
  const outcome: { saved?: { next: TokenSet; saving: Promise<void> }; refused?: unknown } = {};
  const onAnswer = (response: HttpResponse): void => {
    if (outcome.saved || 'refused' in outcome) return;
    try {
      const next = read(response);
      const saving = Promise.resolve(save(next));
      // Awaited below; until then its failure is not an unhandled rejection.
      saving.catch(() => undefined);
      outcome.saved = { next, saving };
    } catch (error) {
      outcome.refused = error;
    }
  };
  try {
    onAnswer(await send({ ...request, onAnswer }));
  } catch (error) {
    // The connection failed after the whole answer was in: the answer stands.
    if (!outcome.saved && !('refused' in outcome)) throw error;
  }
  if ('refused' in outcome) throw outcome.refused;
  const { next, saving } = outcome.saved!;
  try {
    await saving;
  } catch (unsaved) {
    return { next, unsaved };
  }
  return { next };
}
