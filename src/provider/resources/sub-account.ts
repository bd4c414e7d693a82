// proxyaccount_sub_account: a sub-account of the parent account. The pattern every resource
// module follows: schema, create, read, update, delete, import. No usage figures here (they
// change by themselves and would make every drift check noisy); the data source has them.
import type { SubAccountWrite } from '../../account';
import type { SubAccount, SubAccountInput } from '../../sdk';
import { reportAlreadyExists } from '../access/already-exists';
import { missingId } from '../access/state-ids';
import { isOutcomeUnknown, keepIfOutcomeUnknown, reportWith } from '../access/unknown-outcome';
import { isUsername, usernameValidators } from '../access/usernames';
import {
  atMost,
  attr,
  conflictsWith,
  defineSchema,
  email,
  intAtLeast,
  isKnown,
  lengthBetween,
  noControlCharacters,
  requiresReplace,
  useStateForUnknown,
  type Model,
  type PlanModel,
  type Unknown,
} from '../framework';
import type { Ctx, Resource } from '../types';

/**
 * The largest bandwidth limit (GB): 15 digits, which a JS number holds exactly, so a value such
 * as 9007199254740993 (which would silently become …992) or 1e20 is refused at plan time.
 */
const MAX_LIMIT_GB = 999_999_999_999_999;

const schema = defineSchema({
  description:
    'A sub-account of the parent account: a real account with restricted capabilities whose usage counts toward the parent. Usage figures are in the `proxyaccount_sub_account` data source.',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The sub-account username (same as `username`).',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    username: attr.string({
      description: 'Username, globally unique across all accounts: 1–30 letters, digits and `.` `@` `+` `-`. Changing it replaces the sub-account.',
      markdown: true,
      required: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
    password: attr.string({
      description:
        'Password, up to 128 characters. Stored in state; prefer `password_wo` with Terraform 1.11 or later. The API never returns it, so a password changed outside Terraform is not detected, and it is null after import. The API cannot remove a password, so removing `password` from a sub-account that has one (with no `password_wo_version` in its place) replaces the sub-account: it is deleted with its usage history, authorized IPs, hostnames and bearer tokens, and created anew without a password. To stop managing the password without replacing the sub-account, add `lifecycle { ignore_changes = [password] }` (the value may then be left out).',
      markdown: true,
      optional: true,
      sensitive: true,
      validators: [lengthBetween(1, 128), conflictsWith('password_wo')],
    }),
    password_wo: attr.string({
      description:
        'Write-only password (Terraform 1.11 or later), never stored in plan or state. Requires `password_wo_version`: the version is what tells Terraform to send it again, and the only trace in state that it was sent. Sent at create and whenever `password_wo_version` changes, so those runs must give it (see `password_wo_version`). Moving from `password` to `password_wo` changes the password in place.',
      markdown: true,
      optional: true,
      sensitive: true,
      writeOnly: true,
      validators: [lengthBetween(1, 128), conflictsWith('password')],
    }),
    password_wo_version: attr.number({
      description:
        'Any number, required with `password_wo`; change it to send `password_wo` again (password rotation). `password_wo` is needed in the run that creates the sub-account and in every run that changes the version (with neither `password_wo` nor `password` given, the plan warns and applying it fails before anything is sent, since no password would go with the version; a `terraform destroy` does not need it); in the other runs it may be null, and the version alone keeps the password as it is. The API cannot remove a password, so removing the version (with no `password` instead) from a sub-account that has a password replaces the sub-account: it is deleted with its usage history, authorized IPs, hostnames and bearer tokens and created anew without a password.',
      markdown: true,
      optional: true,
    }),
    first_name: attr.string({
      description: 'First name, 1–20 characters. Removing it clears it.',
      optional: true,
      validators: [lengthBetween(1, 20), noControlCharacters()],
    }),
    last_name: attr.string({
      description: 'Last name, 1–20 characters. Removing it clears it.',
      optional: true,
      validators: [lengthBetween(1, 20), noControlCharacters()],
    }),
    email: attr.string({
      description: 'Email address, up to 255 characters. Removing it clears it.',
      optional: true,
      validators: [lengthBetween(1, 255), email(), noControlCharacters()],
    }),
    monthly_limit: attr.number({
      description: 'Bandwidth limit in GB for the current billing period; 0 means no limit. A whole number up to 999999999999999.',
      optional: true,
      computed: true,
      default: 0,
      validators: [intAtLeast(0), atMost(MAX_LIMIT_GB)],
    }),
    total_limit: attr.number({
      description: 'Bandwidth limit in GB over all time; 0 means no limit. A whole number up to 999999999999999.',
      optional: true,
      computed: true,
      default: 0,
      validators: [intAtLeast(0), atMost(MAX_LIMIT_GB)],
    }),
    active: attr.bool({
      description: 'Whether the sub-account may use the proxies; false deactivates it (proxy requests then get 402).',
      optional: true,
      computed: true,
      default: true,
    }),
  },
});

/** The state of a `proxyaccount_sub_account`. */
export type SubAccountModel = Model<typeof schema>;

/** The `proxyaccount_sub_account` resource. */
export const subAccountResource = {
  typeName: 'proxyaccount_sub_account',
  displayName: 'sub-account',
  describe: (m) => `sub-account '${m.username ?? m.id ?? ''}'`,
  schema,

  validateConfig(ctx, config) {
    // Given as an expression not yet known counts too: it may be a password.
    if (config.password_wo !== null && config.password_wo_version === null) {
      ctx.diagnostics.addAttributeError(
        'password_wo',
        'Write-only password without a version',
        'password_wo needs password_wo_version: add password_wo_version = 1 (any number). The version is what tells Terraform to send password_wo again (change it whenever password_wo changes), and the only trace in state that a password was sent: without it, removing password_wo later could not be seen, and the old password would go on working.',
      );
    }
  },

  modifyPlan(ctx, { config, prior }) {
    const unsent = unsentVersion(prior, config);
    if (unsent !== undefined) {
      // A warning, not an error: terraform destroy first plans the configuration as an apply would,
      // and a destroy must not need the secret (a sub-account deleted outside Terraform plans a
      // create here). The apply refuses it before sending anything (refusedUnsent).
      ctx.diagnostics.addAttributeWarning(
        'password_wo',
        'No password to send',
        `${unsent} Applying this plan fails at this sub-account, before anything is sent.`,
      );
      return undefined;
    }
    if (prior === null || !removesPassword(prior, config)) return undefined;
    // An edit without a password keeps the old one, which would go on authenticating to the API
    // and the proxy servers while the state says there is none: only a new sub-account has none.
    const changed = prior.password !== null ? 'password' : 'password_wo_version';
    ctx.diagnostics.addAttributeWarning(changed, 'Removing the password replaces the sub-account', removalDetail(prior, changed));
    return { requiresReplace: (['password', 'password_wo_version'] as const).filter((name) => prior[name] !== null) };
  },

  checkState(state) {
    // Acting on a username that disagrees with the id could change another sub-account.
    if (state.id === null) return missingId(state);
    if (state.username === null) {
      return { attribute: 'username', problem: `username is missing, while id ${JSON.stringify(state.id)} names a sub-account` };
    }
    if (state.id !== state.username) {
      return { attribute: 'username', problem: `username ${JSON.stringify(state.username)} does not match id ${JSON.stringify(state.id)}` };
    }
    return undefined;
  },

  async create(ctx, { planned, config }) {
    const username = planned.username;
    if (refusedUnsent(ctx, null, planned, config)) return undefined;
    const input: SubAccountInput = {
      username,
      ...optionalField('password', planned.password ?? config.password_wo),
      ...optionalField('firstName', planned.first_name),
      ...optionalField('lastName', planned.last_name),
      ...optionalField('email', planned.email),
      monthlyLimit: planned.monthly_limit ?? 0,
      totalLimit: planned.total_limit ?? 0,
    };
    // What the lost create would have made, kept (tainted) when its outcome stays unknown.
    const asSent: SubAccount = {
      username,
      ...optionalField('firstName', planned.first_name),
      ...optionalField('lastName', planned.last_name),
      ...optionalField('email', planned.email),
      monthlyBandwidth: 0,
      monthlyBandwidthLimit: input.monthlyLimit ?? 0,
      totalBandwidth: 0,
      totalBandwidthLimit: input.totalLimit ?? 0,
      active: true,
    };
    const created = await keepIfOutcomeUnknown<SubAccountWrite | 'unknown'>(ctx, 'Unable to create sub-account', `sub-account '${username}'`, 'unknown', () =>
      ctx.data.subAccounts.create(input),
    );
    if (created === undefined) return undefined;
    if (created === 'unknown') return toState(planned, asSent);
    if (created.outcome === 'exists') {
      // Someone else's sub-account of that name: adopting it would bring its lists and tokens
      // under this configuration unseen.
      reportAlreadyExists(
        ctx,
        'Unable to create sub-account',
        `sub-account '${username}'`,
        'proxyaccount_sub_account',
        username,
        'read before creating it; nothing was sent',
      );
      return undefined;
    }
    if (created.outcome === 'recovered') ctx.log.log('warn', 'the answer to the create was lost; reading back found the sub-account made', { username });
    let remote = created.account;
    if (planned.active === false) {
      try {
        remote = await ctx.data.subAccounts.setActive(username, false);
      } catch (err) {
        // The sub-account exists: return it with the error so Terraform keeps it in state.
        ctx.reportError(err, 'Unable to deactivate sub-account', `sub-account '${username}'`);
      }
    }
    return toState(planned, remote);
  },

  async read(ctx, { state }) {
    const username = state.username ?? state.id;
    if (username === null) return null;
    // The authorized IPs that name this sub-account are refreshed only after it has been planned,
    // one by one in Terraform's ten slots, where another account's entries may hold every slot for
    // a while: their shared list is started now, beside this read, so it is there when they come
    // (bench/RESULTS.md, a plan at 150 ms of API latency). It costs one read more for a
    // sub-account whose IPs are not managed.
    const found = ctx.data.subAccounts.find(username);
    ctx.data.account(username).ips.prefetch();
    const remote = await found;
    return remote === undefined ? null : toState(state, remote);
  },

  async update(ctx, { prior, planned, config }) {
    const subAccounts = ctx.data.subAccounts;
    const username = planned.username;
    if (refusedUnsent(ctx, prior, planned, config)) return undefined;
    const rotate = planned.password_wo_version !== prior.password_wo_version && config.password_wo !== null;
    const password = planned.password ?? (rotate ? config.password_wo : null);
    const newPassword = rotate || planned.password !== prior.password;
    let remote: SubAccount | undefined;
    // An activation toggle alone costs one request, not an edit as well.
    if (newPassword || editableChanged(prior, planned)) {
      // The complete desired field set: an omitted field would keep its old value, so a
      // removed name or email is sent empty to clear it. The configured password goes with every
      // edit, changed or not: what the API does with an edit that omits one is not in its
      // contract, and one that cleared it would lock every client out. (So a lost answer of such
      // an edit is sent again rather than read back; see the store's `edit`.)
      try {
        remote = await subAccounts.edit({ username, ...optionalField('password', password), ...editableFields(planned) });
      } catch (err) {
        if (!newPassword || !isOutcomeUnknown(err)) throw err;
        // The prior state stays (nothing is returned): its password, or password_wo_version, is
        // the old one, so the next plan sends the new password again.
        reportWith(ctx, err, 'Unable to update sub-account', `sub-account '${username}'`, passwordMayBeInForce(prior, username));
        return undefined;
      }
    }
    const wantActive = planned.active ?? true;
    if ((remote?.active ?? prior.active) !== wantActive) {
      try {
        remote = await subAccounts.setActive(username, wantActive);
      } catch (err) {
        // The edit made (its password included) is in the state returned with the error.
        if (remote === undefined) throw err;
        ctx.reportError(err, 'Unable to update sub-account', `sub-account '${username}'`);
      }
    }
    remote ??= await subAccounts.get(username);
    return toState(planned, remote);
  },

  async delete(ctx, { prior }) {
    const username = prior.username ?? prior.id;
    // Already gone counts as deleted, so a retried apply never fails on it.
    if (username !== null) await ctx.data.subAccounts.delete(username);
  },

  async import(ctx, id) {
    const username = id.trim();
    if (!isUsername(username)) {
      ctx.diagnostics.addError('Invalid import ID', `Expected a sub-account username (1–30 letters, digits and . @ + -), got ${JSON.stringify(id)}.`);
      return undefined;
    }
    // The state says no password while one may authenticate to the API and the proxy servers:
    // said once, here, since no later plan can see it; of a sub-account that exists (Terraform's
    // read right after says when none does). The read is the one Terraform's read then shares.
    if ((await ctx.data.subAccounts.find(username)) !== undefined) {
      ctx.diagnostics.addWarning('Password of an imported sub-account not known', importedPasswordDetail(username));
    }
    return { id: username, username };
  },
} satisfies Resource<typeof schema>;

/** What an import cannot know of the password, and how to take it over. */
function importedPasswordDetail(username: string): string {
  return (
    `The API never shows a sub-account's password, nor whether it has one, so the state of sub-account '${username}' records none (password and password_wo_version are null), and no plan shows a difference. ` +
    'Any password it has goes on working with the API and the proxy servers until one is applied in its place: ' +
    'set password_wo with password_wo_version (Terraform 1.11 or later), or password, and apply; the first apply after the import sends it.'
  );
}

/** State from the API's answer; what the API never returns (passwords) comes from `known`. */
function toState(known: SubAccountModel, remote: SubAccount): SubAccountModel {
  return {
    id: remote.username,
    // The configured spelling stays: Terraform rejects a required value that changes on apply.
    username: known.username ?? remote.username,
    password: known.password,
    password_wo: null,
    password_wo_version: known.password_wo_version,
    first_name: remote.firstName ?? null,
    last_name: remote.lastName ?? null,
    email: remote.email ?? null,
    monthly_limit: remote.monthlyBandwidthLimit,
    total_limit: remote.totalBandwidthLimit,
    active: remote.active,
  };
}

/** The password attributes as a plan or an apply has them (unknown only in a plan). */
interface PasswordSettings {
  readonly password: string | null | Unknown;
  readonly password_wo: string | null | Unknown;
  readonly password_wo_version: number | null | Unknown;
}

/**
 * Why the run would record a `password_wo_version` whose password is not sent, or undefined: the
 * version is set at create, or changes, while the run gives neither `password_wo` nor `password`
 * (`password` is stored and sent itself). A value not yet known passes: it is checked when known.
 */
function unsentVersion(prior: SubAccountModel | null, settings: PasswordSettings): string | undefined {
  const version = settings.password_wo_version;
  if (version === null || !isKnown(version) || version === prior?.password_wo_version) return undefined;
  if (settings.password_wo !== null || settings.password !== null) return undefined;
  return prior === null
    ? 'password_wo_version is set, but password_wo is not given in this run: the sub-account would be created without a password while its state records the version as sent. Give password_wo in this run (it is needed at create and whenever the version changes), or leave password_wo_version out to create the sub-account without a password.'
    : 'password_wo_version changes, but password_wo is not given in this run, so no password would be sent: the sub-account would keep the one it has (if any) while its state records the new version as sent, and no later run would send it. Give password_wo in this run (it is needed whenever the version changes), or keep password_wo_version as it was.';
}

/**
 * The same rule at apply, on the planned version, so no caller can record a version whose
 * password was not sent (Terraform plans again before applying, which refuses it first). Adds the
 * error and returns true when refused.
 */
function refusedUnsent(ctx: Ctx, prior: SubAccountModel | null, planned: SubAccountModel, config: SubAccountModel): boolean {
  const unsent = unsentVersion(prior, { password: planned.password, password_wo: config.password_wo, password_wo_version: planned.password_wo_version });
  if (unsent !== undefined) ctx.diagnostics.addAttributeError('password_wo', 'No password to send', `${unsent} Nothing was sent.`);
  return unsent !== undefined;
}

/**
 * True when the state holds a password (`password`, or a write-only one at a version) and the
 * configuration declares none. `password_wo_version` alone still declares the write-only password:
 * its value is needed only in the runs that change the version. A version in state means a
 * password was sent (validateConfig and unsentVersion see to it), except in states written before
 * those checks, which may hold a version whose password never was.
 */
function removesPassword(prior: SubAccountModel, config: PlanModel<typeof schema>): boolean {
  const had = prior.password !== null || prior.password_wo_version !== null;
  return had && config.password === null && config.password_wo_version === null;
}

function removalDetail(prior: SubAccountModel, changed: 'password' | 'password_wo_version'): string {
  const keep =
    changed === 'password'
      ? 'add lifecycle { ignore_changes = [password] } (the value may then be left out)'
      : 'keep password_wo_version in the configuration (password_wo is needed only when the version changes), or add lifecycle { ignore_changes = [password_wo_version] }';
  return (
    `The API cannot remove a sub-account's password, so removing it from the configuration replaces sub-account '${prior.username ?? prior.id ?? ''}': ` +
    'it is deleted, with its usage history, authorized IPs, hostnames and bearer tokens, and created anew without a password. ' +
    `Entries of it that this configuration manages are created again by the next apply. To stop managing the password without replacing the sub-account, ${keep}.`
  );
}

/** The fields an edit sends besides the username and password, as `m` has them. */
function editableFields(m: SubAccountModel): Omit<SubAccountInput, 'username' | 'password'> {
  return {
    firstName: m.first_name ?? '',
    lastName: m.last_name ?? '',
    email: m.email ?? '',
    monthlyLimit: m.monthly_limit ?? 0,
    totalLimit: m.total_limit ?? 0,
  };
}

/**
 * What a new password whose edit's outcome stays unknown leaves, besides the store's message: which
 * password works is not known, and the state keeps the old one, so the next apply sends it again.
 */
function passwordMayBeInForce(prior: SubAccountModel, username: string): string {
  const kept =
    prior.password !== null
      ? 'the password it had'
      : prior.password_wo_version !== null
        ? `password_wo_version ${prior.password_wo_version}, the version before this apply`
        : 'no password, as before this apply';
  return (
    `The edit carried a new password for sub-account '${username}', which the API never shows: it may already be the one in force, so proxy clients and API callers still using the old password may be refused. ` +
    `The state keeps ${kept}, so the next plan shows the change again and the next apply sends the new password again. ` +
    'Keep the new password in the configuration until an apply succeeds: set back to the old one, it would plan no change while the new one may be in force.'
  );
}

function editableChanged(prior: SubAccountModel, planned: SubAccountModel): boolean {
  return (
    prior.first_name !== planned.first_name ||
    prior.last_name !== planned.last_name ||
    prior.email !== planned.email ||
    prior.monthly_limit !== planned.monthly_limit ||
    prior.total_limit !== planned.total_limit
  );
}

function optionalField<K extends string>(name: K, value: string | null): { [P in K]?: string } {
  return (value === null ? {} : { [name]: value }) as { [P in K]?: string };
}
