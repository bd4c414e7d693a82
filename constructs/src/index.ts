// cdktf-provider-proxyaccount: hand-written L2 constructs, plus the generated L1 bindings as one
// namespace per resource under `l1` (`l1.subAccount.SubAccount`, `l1.provider.ProxyaccountProvider`, ...).
export * as l1 from './gen';
export { AccessListMode, IpEntry } from './access-list';
export { AccessListOwner } from './access-owner';
export { AccountRoster, AccountRosterProps } from './account-roster';
export { ParentAccess, ParentAccessProps } from './parent-access';
export { RosterDefaults, RosterDefinition, RosterMember, RosterTeam } from './roster-data';
export { SubAccount, SubAccountProps, TokenOptions, TokenSpec } from './sub-account';
