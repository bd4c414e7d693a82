// The parts of Terraform's JSON plan format (`terraform show -json PLANFILE`) that review and drift
// read, parsed strictly (an entry it cannot read stops the reading: a plan read in part would be
// reviewed as changing less than it does), and the one rule about secrets: a value Terraform marks
// sensitive, or an attribute that holds a credential, is never copied out of a plan, whatever the
// JSON carries.
// The one plan reader: review, drift and the demo's summaries all read plans through it.
import type { ChangeKind, ChangeView } from '../resource-types';

/** One entry of `resource_changes` or `resource_drift`. */
export interface ResourceChange {
  readonly address: string;
  readonly type: string;
  readonly providerName: string;
  readonly mode: 'managed' | 'data';
  /** Terraform's actions, e.g. ['create'], ['update'], ['delete','create'], ['no-op']. */
  readonly actions: readonly string[];
  /** True when the plan imports the object (Terraform ≥ 1.5 import blocks). */
  readonly importing: boolean;
  readonly before: Values;
  readonly after: Values;
  /** Attributes Terraform will only know after apply ('*': the whole object, in a deferred change). */
  readonly afterUnknown: ReadonlySet<string>;
  /** Top-level attributes marked sensitive before or after (wholly or in part). */
  readonly sensitive: ReadonlySet<string>;
  /** Secret or sensitive attributes whose value changes (their values are never kept). */
  readonly secretsChanged: ReadonlySet<string>;
  /** Top-level attributes whose change forces the replacement (Terraform's `replace_paths`; names only). */
  readonly replacedBy: ReadonlySet<string>;
  /**
   * Why Terraform plans the action, when it says (its `action_reason`, e.g. `replace_by_triggers`,
   * `replace_by_request`): a replacement that `replace_triggered_by` or `-replace` forces has no
   * `replace_paths`, and only this names its cause. A name this reader does not know is kept as is.
   */
  readonly actionReason?: string;
  /**
   * Set for a deposed object (Terraform's `deposed` key): the old object of a create_before_destroy
   * replacement that did not finish, which shares its address with the current one.
   */
  readonly deposed?: string;
}

/** A resource's attribute values (top level), with secrets already removed. */
export type Values = Readonly<Record<string, unknown>>;

/** A resource of the (prior) state. */
export interface StateResource {
  readonly address: string;
  readonly type: string;
  readonly mode: 'managed' | 'data';
  readonly values: Values;
  /** Top-level attributes marked sensitive (wholly or in part; '*': the whole object): their values are not in `values`. */
  readonly sensitive: ReadonlySet<string>;
}

/** One entry of `deferred_changes`: a change the plan leaves to a later plan (applying it does not make it). */
export interface DeferredChange extends ResourceChange {
  /** Terraform's reason, e.g. `provider_config_unknown`, `deferred_prereq`. */
  readonly reason: string;
}

/** What review and drift read of a plan. */
export interface Plan {
  readonly changes: readonly ResourceChange[];
  readonly drift: readonly ResourceChange[];
  /** Changes the plan defers to a later plan (Terraform's `deferred_changes`). */
  readonly deferred: readonly DeferredChange[];
  /** Resources of the prior state, every module flattened. */
  readonly priorState: readonly StateResource[];
  /**
   * False when Terraform marks the plan incomplete (`complete`, Terraform ≥ 1.8): made with
   * `-target`, or deferring changes to a later plan, so applying it leaves part of the code
   * unapplied. Undefined when the plan does not say (an older Terraform, or JSON written by hand).
   */
  readonly complete: boolean | undefined;
  /** When Terraform made the plan (its `timestamp`, Terraform ≥ 1.5); undefined when the plan does not say. */
  readonly timestamp: Date | undefined;
  /**
   * False when Terraform marks the plan not applyable (`applyable`, Terraform ≥ 1.8): nothing to
   * apply, so applying it writes nothing, not even what its refresh found. Undefined when the plan
   * does not say.
   */
  readonly applyable: boolean | undefined;
  /**
   * The attribute values the code gives each resource as constants (the `configuration`'s
   * `constant_value`s), by address: resources of the root module and of module calls, none with
   * `count` or `for_each` (their instances' addresses are not the configuration's), and never a
   * credential. What the code declares, where the state may hold what `ignore_changes` kept.
   */
  readonly constants: ReadonlyMap<string, Values>;
  /**
   * True when planning failed (`errored`): Terraform saves such a plan, without the changes that
   * failed and what depends on them, and refuses to apply it. Only a caller that asked for errored
   * plans ({@link PlanReading}) gets one; it is refused otherwise.
   */
  readonly errored: boolean;
  /**
   * True for a refresh-only plan (`terraform plan -refresh-only`): it proposes no change, and
   * applying it makes the state accept what changed outside Terraform (its `drift`). The JSON has
   * no mode field: Terraform writes no `resource_changes` for such a plan, while a normal one has
   * an entry, a no-op at least, for each resource of the code and of the state it keeps; drift it
   * does not undo (`ignore_changes`) beside a changed output makes a normal plan applyable with
   * no-ops only. So: drift, no `resource_changes` at all, and not refused as unapplyable. A normal
   * plan of a code that declares none of the drifted resources, with nothing else to do, reads the
   * same, and applying it does the same: the state accepts the drift.
   */
  readonly refreshOnly: boolean;
}

/** How {@link parsePlanJson} takes a plan whose planning failed. */
export interface PlanReading {
  /**
   * `refuse` (review: a plan reviewed whole or not at all), or `read` (drift, which reports what
   * such a plan holds and says the rest was not checked). @default 'refuse'
   */
  readonly errored?: 'refuse' | 'read';
}

/** Attributes that hold credentials: never shown, whether or not the plan marks them sensitive. */
export const SECRET_ATTRIBUTES: ReadonlySet<string> = new Set(['token', 'password', 'password_wo', 'password_wo_version']);

/** The kind of a change, as a reviewer reads it. */
export type { ChangeKind } from '../resource-types';

/**
 * Terraform's action lists, the whole documented set, and their kinds: `forget` (Terraform 1.7) is a
 * `removed` block with `destroy = false`, which leaves the object in the account with no state
 * managing it; `create` beside it when a new object replaces the forgotten one.
 */
const KINDS: ReadonlyMap<string, ChangeKind> = new Map([
  ['no-op', 'no-op'],
  ['create', 'create'],
  ['read', 'read'],
  ['update', 'update'],
  ['delete', 'delete'],
  ['delete,create', 'replace'],
  ['create,delete', 'replace'],
  ['forget', 'forget'],
  ['create,forget', 'forget'],
] satisfies Array<[string, ChangeKind]>);

/**
 * Classifies Terraform's action list; an import with no other change is `import`. Throws for a list
 * outside Terraform's set (a newer Terraform's action): what applying it does cannot be told.
 */
export function kindOf(c: Pick<ResourceChange, 'actions' | 'importing'>): ChangeKind {
  const kind = KINDS.get(c.actions.join(','));
  if (kind === undefined) throw new Error(`the Terraform action ${JSON.stringify(c.actions)} is not one this reader knows`);
  return kind === 'no-op' && c.importing ? 'import' : kind;
}

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Top-level keys whose sensitivity marks contain a `true` anywhere. */
function markedKeys(marks: unknown): string[] {
  if (marks === true) return ['*'];
  if (!isRecord(marks)) return [];
  return Object.keys(marks).filter((k) => JSON.stringify(marks[k]).includes('true'));
}

/** Values without credentials and without anything marked sensitive. */
function cleanValues(v: unknown, sensitive: ReadonlySet<string>): Values {
  if (!isRecord(v) || sensitive.has('*')) return {};
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) {
    if (SECRET_ATTRIBUTES.has(k) || sensitive.has(k)) continue;
    out[k] = value;
  }
  return out;
}

/** Which hidden attributes differ between before and after: compared here, never copied out. */
function secretsChanged(before: unknown, after: unknown, sensitive: ReadonlySet<string>): Set<string> {
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const hidden = new Set([...SECRET_ATTRIBUTES, ...sensitive].filter((k) => k !== '*'));
  return new Set([...hidden].filter((k) => (k in a || k in b) && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)));
}

/**
 * A plan entry this reader cannot read. Leaving it out would review the plan as if the entry were
 * not there ("No changes" for a plan that changes the account), so the whole plan is refused. The
 * message names the entry by its place and address, never by its values (they may hold secrets).
 */
class UnreadableEntry extends Error {}

function unreadable(why: string): never {
  throw new UnreadableEntry(why);
}

/** An address for a message: quoted, control characters escaped, and not too long. */
function quoted(address: unknown): string {
  const s = JSON.stringify(typeof address === 'string' ? address : String(address));
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** A value that is absent, null, or of one of the given JSON shapes. */
function optional(v: unknown, ...shapes: Array<'object' | 'boolean' | 'array'>): boolean {
  if (v === undefined || v === null) return true;
  return shapes.some((shape) => (shape === 'object' ? isRecord(v) : shape === 'array' ? Array.isArray(v) : typeof v === 'boolean'));
}

/**
 * One entry of `resource_changes`, `resource_drift` or a deferred change. `wholeUnknown`: whether
 * `after_unknown` may be `true` (an object nothing is known of yet, which only a deferred change has).
 */
function parseChange(raw: unknown, wholeUnknown = false): ResourceChange {
  if (!isRecord(raw)) unreadable('it is not an object');
  if (typeof raw.address !== 'string' || raw.address === '') unreadable('it has no address');
  if (typeof raw.type !== 'string' || raw.type === '') unreadable('it has no resource type');
  if (raw.mode !== undefined && raw.mode !== 'managed' && raw.mode !== 'data') unreadable(`its mode ${quoted(raw.mode)} is neither "managed" nor "data"`);
  const change = raw.change;
  if (!isRecord(change)) unreadable('it has no change object');
  const actions = change.actions;
  if (!Array.isArray(actions) || !actions.every((a): a is string => typeof a === 'string')) unreadable('its actions are not a list of names');
  const importing = isRecord(change.importing);
  checkActions(actions, importing);
  if (!optional(change.before, 'object') || !optional(change.after, 'object')) unreadable('its before or after value is not an object');
  if (!optional(change.before_sensitive, 'object', 'boolean') || !optional(change.after_sensitive, 'object', 'boolean')) {
    unreadable('its sensitivity marks are neither an object nor a boolean');
  }
  if (!optional(change.after_unknown, 'object', 'boolean') || (change.after_unknown === true && !wholeUnknown)) {
    unreadable('its unknown-value marks are not an object of attributes');
  }
  if (raw.action_reason !== undefined && raw.action_reason !== null && typeof raw.action_reason !== 'string') unreadable('its action_reason is not a name');
  const sensitive = new Set([...markedKeys(change.before_sensitive), ...markedKeys(change.after_sensitive)]);
  const afterUnknown = change.after_unknown;
  const unknown = afterUnknown === true ? ['*'] : isRecord(afterUnknown) ? Object.keys(afterUnknown).filter((k) => afterUnknown[k] === true) : [];
  return {
    address: raw.address,
    type: raw.type,
    providerName: typeof raw.provider_name === 'string' ? raw.provider_name : '',
    mode: raw.mode === 'data' ? 'data' : 'managed',
    actions,
    importing,
    before: cleanValues(change.before, sensitive),
    after: cleanValues(change.after, sensitive),
    afterUnknown: new Set(unknown),
    sensitive,
    secretsChanged: secretsChanged(change.before, change.after, sensitive),
    replacedBy: new Set(
      Array.isArray(change.replace_paths) ? change.replace_paths.flatMap((path) => (Array.isArray(path) && typeof path[0] === 'string' ? [path[0]] : [])) : [],
    ),
    ...(typeof raw.action_reason === 'string' && raw.action_reason !== '' ? { actionReason: raw.action_reason } : {}),
    ...(typeof raw.deposed === 'string' && raw.deposed !== '' ? { deposed: raw.deposed } : {}),
  };
}

/** An action list outside Terraform's set makes the entry unreadable. */
function checkActions(actions: readonly string[], importing: boolean): void {
  try {
    kindOf({ actions, importing });
  } catch {
    unreadable(
      `its actions ${quoted(actions.join(', '))} are not among Terraform's (create, read, update, delete, no-op, forget, and the replace forms ` +
        'delete+create, create+delete, create+forget): it may come from a newer Terraform, and what applying it does cannot be told',
    );
  }
}

function parseDeferred(raw: unknown): DeferredChange {
  if (!isRecord(raw)) unreadable('it is not an object');
  if (!isRecord(raw.resource_change)) unreadable('it has no resource_change object');
  return { ...parseChange(raw.resource_change, true), reason: typeof raw.reason === 'string' && raw.reason !== '' ? raw.reason : 'unknown' };
}

/** The entries of one list of the plan, each read or the plan refused, naming the entry. */
function entries<T>(json: Record<string, unknown>, key: string, parse: (raw: unknown) => T): T[] {
  const v = json[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Error(`not a plan this reader can read: its ${key} is not a list`);
  return v.map((raw, i) => {
    try {
      return parse(raw);
    } catch (err) {
      if (!(err instanceof UnreadableEntry)) throw err;
      const change = isRecord(raw) && isRecord(raw.resource_change) ? raw.resource_change : raw;
      const address = isRecord(change) && typeof change.address === 'string' ? ` (${quoted(change.address)})` : '';
      throw new Error(`cannot read the plan: ${key}[${i}]${address}: ${err.message}. The plan is refused rather than read with an entry left out`);
    }
  });
}

function stateResources(module: unknown): StateResource[] {
  if (!isRecord(module)) return [];
  const own = Array.isArray(module.resources) ? module.resources : [];
  const out: StateResource[] = [];
  for (const r of own) {
    if (!isRecord(r) || typeof r.address !== 'string' || typeof r.type !== 'string') continue;
    const sensitive = new Set(markedKeys(r.sensitive_values));
    out.push({ address: r.address, type: r.type, mode: r.mode === 'data' ? 'data' : 'managed', values: cleanValues(r.values, sensitive), sensitive });
  }
  const children = Array.isArray(module.child_modules) ? module.child_modules : [];
  for (const child of children) out.push(...stateResources(child));
  return out;
}

/**
 * Terraform's JSON formats change their major version only for changes a reader must know of: a
 * plan of another major version is refused (a plan without one, written by hand, is read as 1.x).
 */
function checkFormatVersion(v: unknown): void {
  if (v === undefined) return;
  if (typeof v !== 'string' || !/^1(\.\d+)*$/.test(v)) {
    throw new Error(`not a plan this reader can read: its format_version is ${quoted(v)}, and only 1.x is understood (a newer Terraform? update proxyaccount)`);
  }
}

/** Terraform's own verdict on the plan: `errored` (Terraform ≥ 1.5), `applyable` and `complete` (≥ 1.8); absent before. */
interface PlanStatus {
  readonly errored: boolean;
  readonly applyable: boolean | undefined;
  readonly complete: boolean | undefined;
}

function planStatus(json: Record<string, unknown>): PlanStatus {
  const flag = (key: 'errored' | 'applyable' | 'complete'): boolean | undefined => {
    const v = json[key];
    if (v === undefined || typeof v === 'boolean') return v;
    throw new Error(`not a plan this reader can read: its ${key} is neither true nor false`);
  };
  return { errored: flag('errored') === true, applyable: flag('applyable'), complete: flag('complete') };
}

/** The refusal of a plan whose planning failed: read whole, it would review as changing less than the code does ("No changes"). */
const ERRORED_PLAN =
  'the plan is incomplete because planning failed: Terraform saves a plan file even when `terraform plan` fails (it marks it errored, ' +
  'and refuses to apply it), without the changes that failed and everything that depends on them. Fix the errors `terraform plan` reported, then plan again';

/**
 * A plan Terraform marks not applyable without errors has nothing to apply (no change but no-ops):
 * one that lists changes contradicts itself. Terraform refuses to apply such a plan, and this
 * reader refuses to read it.
 */
function checkApplyable(status: PlanStatus, changes: readonly ResourceChange[]): void {
  if (status.errored || status.applyable !== false) return;
  const changing = changes.find((c) => c.actions.join(',') !== 'no-op');
  if (changing === undefined) return;
  throw new Error(
    `cannot read the plan: it is marked not applyable (nothing to apply), yet resource_changes holds a change (${quoted(changing.address)}). ` +
      'Terraform refuses to apply such a plan; it is refused rather than read one way or the other',
  );
}

/**
 * Reads `terraform show -json PLANFILE` output; throws with a clear message when it is not a plan,
 * or holds what this reader cannot read (another major format version, an entry it cannot parse, an
 * action Terraform did not document, marks that contradict its changes): a plan is reviewed whole
 * or not at all. A plan whose planning failed is refused unless `reading.errored` is `read`.
 */
export function parsePlanJson(json: unknown, reading: PlanReading = {}): Plan {
  if (!isRecord(json)) throw new Error('not a Terraform plan in JSON form (expected an object from `terraform show -json PLANFILE`)');
  if (!['resource_changes', 'planned_values', 'resource_drift', 'deferred_changes'].some((key) => key in json)) {
    throw new Error('not a Terraform plan in JSON form: it has no resource_changes, resource_drift, deferred_changes or planned_values');
  }
  checkFormatVersion(json.format_version);
  const status = planStatus(json);
  if (status.errored && reading.errored !== 'read') throw new Error(ERRORED_PLAN);
  const prior = isRecord(json.prior_state) && isRecord(json.prior_state.values) ? stateResources(json.prior_state.values.root_module) : [];
  const changes = entries(json, 'resource_changes', (raw) => parseChange(raw));
  checkApplyable(status, changes);
  const drift = entries(json, 'resource_drift', (raw) => parseChange(raw));
  return {
    changes,
    drift,
    deferred: entries(json, 'deferred_changes', parseDeferred),
    priorState: prior,
    complete: status.complete,
    timestamp: planTime(json.timestamp),
    applyable: status.applyable,
    constants: configuredConstants(json.configuration),
    errored: status.errored,
    refreshOnly: isRefreshOnly(status, changes, drift),
  };
}

/** See {@link Plan.timestamp}: a time Terraform wrote, or undefined for anything else. */
function planTime(v: unknown): Date | undefined {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** See {@link Plan.constants}. */
function configuredConstants(configuration: unknown): Map<string, Values> {
  const out = new Map<string, Values>();
  const walk = (module: unknown, prefix: string): void => {
    if (!isRecord(module)) return;
    for (const r of Array.isArray(module.resources) ? module.resources : []) {
      if (!isRecord(r) || typeof r.address !== 'string' || !isRecord(r.expressions)) continue;
      if (r.count_expression !== undefined || r.for_each_expression !== undefined) continue;
      const values: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(r.expressions)) {
        if (!SECRET_ATTRIBUTES.has(k) && isRecord(e) && 'constant_value' in e) values[k] = e.constant_value;
      }
      out.set(`${prefix}${r.address}`, values);
    }
    for (const [name, call] of isRecord(module.module_calls) ? Object.entries(module.module_calls) : []) {
      if (!isRecord(call) || call.count_expression !== undefined || call.for_each_expression !== undefined) continue;
      walk(call.module, `${prefix}module.${name}.`);
    }
  };
  if (isRecord(configuration)) walk(configuration.root_module, '');
  return out;
}

/** See {@link Plan.refreshOnly}. */
function isRefreshOnly(status: PlanStatus, changes: readonly ResourceChange[], drift: readonly ResourceChange[]): boolean {
  return !status.errored && drift.length > 0 && changes.length === 0 && status.applyable !== false;
}

/** True for a resource of this provider (any registry host or namespace). */
export { isProviderType as isProxyAccount } from '../resource-types';

/** A change as the catalogue's descriptors read it. */
export function changeView(c: ResourceChange): ChangeView {
  return {
    kind: kindOf(c),
    before: c.before,
    after: c.after,
    secretsChanged: c.secretsChanged,
    unknown: c.afterUnknown,
    hidden: c.sensitive,
    replacedBy: c.replacedBy,
    ...(c.deposed !== undefined ? { deposed: true as const } : {}),
  };
}
