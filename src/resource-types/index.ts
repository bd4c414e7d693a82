// The resource-type catalogue: one descriptor per resource type of the provider, saying what
// everything outside the provider needs to know of it (name, noun, owning account, collection,
// the keys it manages, import-ID format, how to describe a change and export an object). The
// GitOps commands, the demo and the constructs' generated import-ID helpers read it instead of
// re-encoding type names. It imports nothing of ours; test/architecture/registry.test.ts checks
// that every registered resource has a descriptor here.
import { ACCESS_TYPES } from './access-types';
import { ACCOUNT_TYPES } from './account-types';
import type { ResourceTypeDescriptor } from './types';

export * from './import-ids';
export type * from './types';
export { accountPhrase, verb as changeVerb, withArticle } from './words';
export { EPHEMERAL_TOKEN_PREFIX, isEphemeralTokenLabel, LEFTOVER_NOT_ADOPTED } from './ephemeral-tokens';

/** The prefix of every type name of this provider (any registry host or namespace). */
export const TYPE_PREFIX = 'proxyaccount_';

/** Descriptors by type name, in the order a reader meets them: the account, its access, its tokens. */
export type Catalogue = ReadonlyMap<string, ResourceTypeDescriptor>;

/** A catalogue of `descriptors` (a test adds a toy type this way); a type named twice is refused. */
export function catalogueOf(descriptors: readonly ResourceTypeDescriptor[]): Catalogue {
  const out = new Map<string, ResourceTypeDescriptor>();
  for (const d of descriptors) {
    if (out.has(d.typeName)) throw new Error(`the resource-type catalogue names ${d.typeName} twice`);
    out.set(d.typeName, d);
  }
  return out;
}

/** Every resource type of the provider. */
export const RESOURCE_TYPES: Catalogue = catalogueOf([ACCOUNT_TYPES[0]!, ...ACCESS_TYPES, ACCOUNT_TYPES[1]!]);

/** True for a type of this provider. */
export function isProviderType(typeName: string): boolean {
  return typeName.startsWith(TYPE_PREFIX);
}

/** The data source whose values carry a sub-account's usage figures (read by review). */
export const USAGE_DATA_SOURCE = `${TYPE_PREFIX}sub_account`;

/**
 * The descriptor of a type of this provider; throws for one the catalogue lacks, so that a new
 * type is never silently treated as unknown (e.g. its objects reported as unmanaged).
 */
export function describeType(catalogue: Catalogue, typeName: string): ResourceTypeDescriptor {
  const d = catalogue.get(typeName);
  if (d === undefined) {
    throw new Error(`${typeName} has no descriptor in the resource-type catalogue (src/resource-types): add one (CONTRIBUTING.md, "Adding a resource type")`);
  }
  return d;
}
