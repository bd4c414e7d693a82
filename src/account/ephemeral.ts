// The label convention of bearer tokens opened by the `proxyaccount_bearer_token` ephemeral
// resource: a recognisable prefix, so a drift run reports leftovers as such and
// `proxyaccount tokens prune` can find and delete them.

/** Every ephemeral token's label starts with this. */
export const EPHEMERAL_TOKEN_PREFIX = 'tf-ephemeral:';

/** True when a token label marks a token opened by the ephemeral resource. */
export function isEphemeralTokenLabel(label: string): boolean {
  return label.startsWith(EPHEMERAL_TOKEN_PREFIX);
}
