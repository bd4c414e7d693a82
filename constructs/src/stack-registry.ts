// Which construct of each stack declares each account, by provider configuration: a second
// construct for one account would manage the same live objects beside the first, each checking
// only its own entries, so it is refused, naming the first. Internal: not exported from the
// package index.
import { TerraformProvider, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { show } from './validation';

const DECLARED = new WeakMap<TerraformStack, Map<string, Construct>>();

/** One account under one provider configuration. */
export interface AccountKey {
  /** The provider configuration: the same alias (or both the default provider) is the same one. */
  readonly provider?: TerraformProvider;
  /** The sub-account's username, as given (a plain string); undefined for the parent account. */
  readonly username?: string;
}

function keyOf(key: AccountKey): string {
  return `${key.provider?.alias ?? ''}\0${key.username === undefined ? 'parent' : `sub-account\0${key.username}`}`;
}

function declaredIn(scope: Construct): Map<string, Construct> {
  const stack = TerraformStack.of(scope);
  let declared = DECLARED.get(stack);
  if (declared === undefined) {
    declared = new Map();
    DECLARED.set(stack, declared);
  }
  return declared;
}

/** The construct of `scope`'s stack that already declares the account, if any. */
export function declaredBy(scope: Construct, key: AccountKey): Construct | undefined {
  return declaredIn(scope).get(keyOf(key));
}

/** Records `construct` as the one that declares the account in its stack. */
export function declare(construct: Construct, key: AccountKey): void {
  declaredIn(construct).set(keyOf(key), construct);
}

/** The provider configuration of `provider`, for messages. */
export function providerPhrase(provider: TerraformProvider | undefined): string {
  const alias = provider?.alias ?? '';
  return alias === '' ? "the stack's default proxyaccount provider" : `the provider alias ${show(alias)}`;
}
