// The label convention of the `proxyaccount_bearer_token` ephemeral resource's tokens, on its own
// so the provider's bundle takes it without the whole catalogue.

/**
 * Every token the `proxyaccount_bearer_token` ephemeral resource opens has a label starting with
 * this, so drift reports leftovers as such and `proxyaccount tokens prune` deletes them. A managed
 * token may not use it (prune would delete it), and export does not write leftovers as resources.
 */
export const EPHEMERAL_TOKEN_PREFIX = 'tf-ephemeral:';

/** True when a token label marks a token opened by the ephemeral resource. */
export function isEphemeralTokenLabel(label: string): boolean {
  return label.startsWith(EPHEMERAL_TOKEN_PREFIX);
}

/** Why export adopts no leftover (drift reports them, prune deletes them): the line it prints for each. */
export const LEFTOVER_NOT_ADOPTED = 'a leftover of the ephemeral resource; `proxyaccount tokens prune` deletes it';
