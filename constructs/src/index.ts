// cdktf-provider-proxyaccount: hand-written L2 constructs, plus the generated L1 bindings as one
// namespace per resource under `l1` (`l1.subAccount.SubAccount`, `l1.provider.ProxyaccountProvider`, ...).
export * as l1 from './gen';
export { AccessListMode, IpEntry } from './access-list';
export { AccessListOwner, TokenOptions, TokenSpec } from './access-owner';
export { AccountRoster, AccountRosterProps, RosterOptions } from './account-roster';
export { ParentAccess, ParentAccessProps } from './parent-access';
export { RosterDefaults, RosterDefinition, RosterMember, RosterParent, RosterTeam } from './roster-data';
export { SubAccount, SubAccountProps } from './sub-account';
