// The bearer token resources' report of the tokens a create deleted after a lost answer: visible,
// since the deleted token is told apart only within this process (account/token-create.ts).
import type { TokenWrite } from '../../account';
import { capitalize, type Diagnostics } from '../framework';

/** Warns about each token `created` deleted as the one a lost answer's request made; nothing when none. */
export function reportDiscardedTokens(diagnostics: Pick<Diagnostics, 'addWarning'>, object: string, created: TokenWrite): void {
  if (created.discarded.length === 0) return;
  const ids = created.discarded.join(', ');
  diagnostics.addWarning(
    'A lost answer: a token with this label was deleted',
    `${capitalize(object)}: the answer to a create was lost, so the token that request made, whose value can never be read, was found by its label and deleted (token ${ids}); token ${created.token.id} was created in its place. ` +
      'Had another client (another provider configuration or job on this account) created a token with the same label at that moment, the deleted one was that token: check what uses this label.',
  );
}
