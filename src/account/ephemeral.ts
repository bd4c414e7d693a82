// The label convention of bearer tokens opened by the `proxyaccount_bearer_token` ephemeral
// resource, which the resource-type catalogue owns: a recognisable prefix, so a drift run reports
// leftovers as such and `proxyaccount tokens prune` can find and delete them.
export { EPHEMERAL_TOKEN_PREFIX, isEphemeralTokenLabel } from '../resource-types/ephemeral-tokens';
