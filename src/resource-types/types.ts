// What the catalogue says about one resource type: the shape every descriptor has.
// Structural types only (no SDK or Terraform types): this layer imports nothing of ours.

/** A resource's attribute values (top level), credentials already removed. */
export type Values = Readonly<Record<string, unknown>>;

/** The kind of a planned change, as a reviewer reads it. */
export type ChangeKind = 'create' | 'update' | 'delete' | 'replace' | 'import' | 'read' | 'forget' | 'no-op';

/** An account's collections in the API: what a resource type's objects live in. */
export type Collection = 'subAccounts' | 'ips' | 'hostnames' | 'proxies' | 'tokens';

/** One planned change, as descriptors read it. */
export interface ChangeView {
  readonly kind: ChangeKind;
  readonly before: Values;
  readonly after: Values;
  /** Secret attributes whose value changes (their values are never given). */
  readonly secretsChanged: ReadonlySet<string>;
  /** Attributes known only after apply (absent from `after`). */
  readonly unknown: ReadonlySet<string>;
  /**
   * Attributes the plan marks sensitive, before or after, wholly or in part ('*': the whole object):
   * absent from `before` and `after`, so what they hold, and whether it changes, is not shown.
   */
  readonly hidden: ReadonlySet<string>;
  /** Top-level attributes whose change forces a replacement (names only; empty when the plan gives none). */
  readonly replacedBy: ReadonlySet<string>;
  /** True for a deposed object's delete: the old object of a create_before_destroy replacement an earlier apply did not finish. */
  readonly deposed?: true;
}

/** How a change's account is named in messages. */
export interface Owner {
  /** The sub-account's username; null for the parent. */
  readonly username: string | null;
  /** "the parent account" or "sub-account 'alice'". */
  readonly phrase: string;
  /** Usage figures the plan knows (from a usage data source), in GB. */
  readonly usage?: { readonly monthly: number; readonly total: number };
  /**
   * Set when the plan deletes or replaces this sub-account: the API deletes its IPs, hostnames and
   * tokens with it, so what a `removed` block forgets in it does not stay in the account.
   */
  readonly deletedBy?: { readonly address: string; readonly kind: 'delete' | 'replace' };
  /**
   * Set for a replacement whose old object is in another account than its new one (it moves, or
   * the plan does not know the new one yet): the account the old object is deleted from.
   */
  readonly leaving?: { readonly username: string | null; readonly phrase: string };
  /**
   * Set for a change in the parent account: whether another change of the plan removes `key` from
   * this type's collection of the parent or forgets it there, so it had the parent's access already.
   */
  readonly openAlready?: (key: string) => boolean;
}

/** A change that needs a reviewer's attention. */
export interface Risk {
  readonly kind:
    | 'sub_account_deleted'
    | 'sub_account_replaced'
    | 'token_deleted'
    | 'token_replaced'
    | 'password_changed'
    | 'list_removes_entries'
    | 'parent_access_opened'
    | 'limit_below_usage'
    | 'deactivation'
    | 'activation'
    | 'no_longer_managed'
    | 'account_not_shown'
    | 'change_deferred'
    | 'deleted_with_account'
    | 'managed_twice'
    | 'create_before_destroy_conflict'
    | 'created_while_present'
    | 'deleted_outside'
    | 'kept_outside';
  readonly message: string;
}

/** An import ID format: `alice/203.0.113.7`, `_self`, `42`, … */
export interface ImportIdFormat {
  /** The forms, for messages: `"IP" or "USERNAME/IP"`. */
  readonly syntax: string;
  /** Examples of each form. */
  readonly examples: readonly string[];
  /** The ID of the object `key` of `username`'s account (null: the parent; key unused by account-wide IDs). */
  format(username: string | null, key: string): string;
  /** The account and key of an ID, or a sentence saying what is wrong (the key itself is checked by the resource). */
  parse(id: string): { readonly username: string | null; readonly key: string } | string;
}

/** What export read of one account (structurally the SDK's types). */
export interface LiveAccountView {
  /** null for the parent. */
  readonly username: string | null;
  readonly details?: {
    readonly username: string;
    readonly firstName?: string;
    readonly lastName?: string;
    readonly email?: string;
    readonly monthlyBandwidthLimit: number;
    readonly totalBandwidthLimit: number;
    readonly active: boolean;
  };
  readonly ips: ReadonlyArray<{ readonly ip: string; readonly label: string }>;
  readonly hostnames: readonly string[];
  readonly tokens: ReadonlyArray<{ readonly id: number; readonly label: string; readonly expiresAt: Date | null; readonly isActive: boolean }>;
  /** The parent's authorized proxies; empty for a sub-account (proxies belong to the parent). */
  readonly proxies: readonly string[];
}

/** An attribute value for export: HCL renders it; a record is an object, an array a list. */
export type ExportValue = string | number | boolean | null | readonly ExportValue[] | { readonly [key: string]: ExportValue };

/** One resource block export writes, with its import ID. */
export interface ExportBlock {
  /** Parts of its Terraform name (export makes a valid name of them). */
  readonly name: readonly string[];
  readonly importId: string;
  readonly attributes: ReadonlyArray<readonly [string, ExportValue]>;
  /** Comments inside the block (what cannot be read back, and how to set it). */
  readonly comments?: readonly string[];
}

/** How a type's objects are written by `proxyaccount export`. */
export interface ExportSpec {
  /** Written with `--lists per-entry`, `--lists authoritative`, or either. */
  readonly lists: 'per-entry' | 'authoritative' | 'any';
  /**
   * The blocks for one live account. Throws, naming the objects, when the account holds what the
   * type's resources would refuse (export then writes nothing).
   */
  blocks(account: LiveAccountView): ExportBlock[];
  /** The live objects of one account it leaves out, one line each saying why: export tells the user, never drops them silently. */
  leftOut?(account: LiveAccountView): string[];
}

/** One resource type, as everything outside the provider needs to know it. */
export interface ResourceTypeDescriptor {
  /** Terraform's type name, e.g. `proxyaccount_authorized_ip`. */
  readonly typeName: string;
  /** What one object is called, and many: `IP`, `IPs`. */
  readonly noun: { readonly one: string; readonly many: string };
  /** `account`: the account itself; `entry`: one object of a collection; `list`: a whole collection of one account. */
  readonly shape: 'account' | 'entry' | 'list';
  /** The collection its objects live in. */
  readonly collection: Collection;
  /** The attribute naming the owning account (the sub-account's username; unset for the parent). */
  readonly ownerAttribute: 'username';
  /** Its import ID (also its resource ID). */
  readonly importId: ImportIdFormat;
  /** The keys of its collection the resource manages: IPs, hostnames, proxy forms, token IDs. */
  managedKeys(values: Values): string[];
  /**
   * The attributes {@link managedKeys} reads. One the state marks sensitive is left out of the
   * values a reader gets, so which objects the resource manages cannot be told from them.
   */
  readonly keyAttributes: readonly string[];
  /**
   * Key attributes another one stands in for when a plan does not show them (known only after
   * apply, or marked sensitive): a proxy's `domain`, which the provider resolves from its
   * configured `proxy` at apply; {@link managedKeys} then reads the stand-in, and {@link sameKey}
   * matches its form with the listed one. Absent: none.
   */
  readonly keyStandIns?: Readonly<Record<string, string>>;
  /**
   * For an entry: its key as the code writes it, for messages (a hostname in its own case, a proxy
   * in its configured form); absent, or undefined: the key as {@link managedKeys} reads it.
   */
  writtenKey?(values: Values): string | undefined;
  /**
   * For an entry or a list: what an entry holds besides its key, which an entry resource and a
   * list can declare differently, for messages (`a label` for an IP); absent: nothing.
   */
  readonly entryDetail?: string;
  /**
   * The attributes of a change found by a refresh (`before` → `after`) that the API made by itself
   * by `at`, not anyone outside Terraform: a token's `active` turned false at its expiry. Absent:
   * none. Review and drift do not take such a change for one made outside Terraform.
   */
  readonly changedByItself?: (before: Values, after: Values, at: Date | undefined) => readonly string[];
  /**
   * Whether two keys of its collection name one object (a proxy form such as `us-ny` and the
   * listed `us-ny.proxy.example.net:8080`); absent: equal keys only.
   */
  sameKey?(a: string, b: string): boolean;
  /**
   * For a list: the keys its latest change removed from the account (`removed_entries`, which the
   * state keeps until the list changes again); undefined for other shapes, or when not known.
   */
  removedKeys?(values: Values): string[] | undefined;
  /** For a list: its entries as a reviewer reads them; undefined for other shapes or when unknown. */
  entries?(values: Values): string[] | undefined;
  /** The change in a reviewer's words, without the account (the section carries it). */
  describeChange(change: ChangeView): string;
  /** The object in a few words for a one-line summary (limits, entries, expiry). */
  summarize(values: Values): string;
  /**
   * The object in the words that name it, for a line about it outside its own change (the old
   * object of a replacement that moves to another account): `IP 203.0.113.7 (office)`,
   * `token 8 'deploy'`, `IP list of 2 IPs (…)`. `change` says what the plan hides or does not know
   * yet. Absent: its noun.
   */
  name?(values: Values, change: ChangeView): string;
  /** Changes that need a reviewer's attention. */
  risks(change: ChangeView, owner: Owner): Risk[];
  /** How export writes it; absent: export never writes this type. */
  readonly export?: ExportSpec;
}
