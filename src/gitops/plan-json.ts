// The parts of Terraform's JSON plan format (`terraform show -json PLANFILE`) that review and drift
// read, parsed defensively, and the one rule about secrets: a value Terraform marks sensitive, or
// an attribute that holds a credential, is never copied out of a plan, whatever the JSON carries.
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
  /** Attributes Terraform will only know after apply. */
  readonly afterUnknown: ReadonlySet<string>;
  /** Top-level attributes marked sensitive before or after (wholly or in part). */
  readonly sensitive: ReadonlySet<string>;
  /** Secret or sensitive attributes whose value changes (their values are never kept). */
  readonly secretsChanged: ReadonlySet<string>;
  /** Top-level attributes whose change forces the replacement (Terraform's `replace_paths`; names only). */
  readonly replacedBy: ReadonlySet<string>;
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

/** What review and drift read of a plan. */
export interface Plan {
  readonly changes: readonly ResourceChange[];
  readonly drift: readonly ResourceChange[];
  /** Resources of the prior state, every module flattened. */
  readonly priorState: readonly StateResource[];
}

/** Attributes that hold credentials: never shown, whether or not the plan marks them sensitive. */
export const SECRET_ATTRIBUTES: ReadonlySet<string> = new Set(['token', 'password', 'password_wo', 'password_wo_version']);

/** The kind of a change, as a reviewer reads it. */
export type { ChangeKind } from '../resource-types';

/**
 * Classifies Terraform's action list; an import with no other change is `import`. A `forget`
 * (a `removed` block with `destroy = false`; `create` beside it when a new object replaces the
 * forgotten one) leaves the object in the account with no state managing it: its own kind.
 */
export function kindOf(c: Pick<ResourceChange, 'actions' | 'importing'>): ChangeKind {
  const a = c.actions;
  if (a.includes('forget')) return 'forget';
  if (a.includes('create') && a.includes('delete')) return 'replace';
  if (a.includes('create')) return 'create';
  if (a.includes('delete')) return 'delete';
  if (a.includes('update')) return 'update';
  if (a.includes('read')) return 'read';
  return c.importing ? 'import' : 'no-op';
}

function isRecord(v: unknown): v is Record<string, unknown> {
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

function parseChange(raw: unknown): ResourceChange | undefined {
  if (!isRecord(raw) || typeof raw.address !== 'string' || typeof raw.type !== 'string' || !isRecord(raw.change)) return undefined;
  const change = raw.change;
  if (!Array.isArray(change.actions)) return undefined;
  const sensitive = new Set([...markedKeys(change.before_sensitive), ...markedKeys(change.after_sensitive)]);
  const unknown = isRecord(change.after_unknown)
    ? Object.keys(change.after_unknown).filter((k) => (change.after_unknown as Record<string, unknown>)[k] === true)
    : [];
  return {
    address: raw.address,
    type: raw.type,
    providerName: typeof raw.provider_name === 'string' ? raw.provider_name : '',
    mode: raw.mode === 'data' ? 'data' : 'managed',
    actions: change.actions.filter((a): a is string => typeof a === 'string'),
    importing: isRecord(change.importing),
    before: cleanValues(change.before, sensitive),
    after: cleanValues(change.after, sensitive),
    afterUnknown: new Set(unknown),
    sensitive,
    secretsChanged: secretsChanged(change.before, change.after, sensitive),
    replacedBy: new Set(
      Array.isArray(change.replace_paths) ? change.replace_paths.flatMap((path) => (Array.isArray(path) && typeof path[0] === 'string' ? [path[0]] : [])) : [],
    ),
  };
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

/** Reads `terraform show -json PLANFILE` output; throws with a clear message when it is not a plan. */
export function parsePlanJson(json: unknown): Plan {
  if (!isRecord(json)) throw new Error('not a Terraform plan in JSON form (expected an object from `terraform show -json PLANFILE`)');
  if (!('resource_changes' in json) && !('planned_values' in json) && !('resource_drift' in json)) {
    throw new Error('not a Terraform plan in JSON form: it has no resource_changes, resource_drift or planned_values');
  }
  const list = (v: unknown): ResourceChange[] => (Array.isArray(v) ? v.map(parseChange).filter((c): c is ResourceChange => c !== undefined) : []);
  const prior = isRecord(json.prior_state) && isRecord(json.prior_state.values) ? stateResources(json.prior_state.values.root_module) : [];
  return { changes: list(json.resource_changes), drift: list(json.resource_drift), priorState: prior };
}

/** True for a resource of this provider (any registry host or namespace). */
export { isProviderType as isProxyAccount } from '../resource-types';

/** A change as the catalogue's descriptors read it. */
export function changeView(c: ResourceChange): ChangeView {
  return { kind: kindOf(c), before: c.before, after: c.after, secretsChanged: c.secretsChanged, unknown: c.afterUnknown, replacedBy: c.replacedBy };
}
