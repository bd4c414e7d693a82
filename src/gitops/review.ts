// `proxyaccount review`: a saved plan as a reviewer reads it. Grouped by account (the parent,
// then each sub-account), in domain words, the risky changes first ("needs attention"), other
// providers' resources counted and listed by address, never a secret.
import { accountOf, counted, describeChange, ipEntry, listDelta, PARENT } from './describe';
import { isProxyAccount, kindOf, type Plan, type ResourceChange } from './plan-json';

/** Counts as in terraform's plan line, plus replacements and imports. */
export interface ReviewSummary {
  add: number;
  change: number;
  destroy: number;
  replace: number;
  import: number;
}

/** One change in one account. */
export interface ReviewChange {
  readonly address: string;
  readonly type: string;
  readonly action: string;
  readonly description: string;
}

/** A change that needs a reviewer's attention. */
export interface Attention {
  readonly kind:
    | 'sub_account_deleted'
    | 'sub_account_replaced'
    | 'token_deleted'
    | 'token_replaced'
    | 'list_removes_entries'
    | 'parent_access_opened'
    | 'limit_below_usage'
    | 'deactivation';
  readonly address: string;
  readonly message: string;
}

/** The review of one plan (the JSON format of `proxyaccount review --format json`). */
export interface Review {
  readonly summary: ReviewSummary;
  readonly accounts: Array<{ account: string; changes: ReviewChange[] }>;
  readonly attention: Attention[];
  readonly other_resources: string[];
}

/** Builds the review of a plan. */
export function reviewPlan(plan: Plan): Review {
  const summary: ReviewSummary = { add: 0, change: 0, destroy: 0, replace: 0, import: 0 };
  const accounts = new Map<string, ReviewChange[]>();
  const attention: Attention[] = [];
  const other: string[] = [];
  const usage = usageByAccount(plan);

  for (const c of plan.changes) {
    if (c.mode !== 'managed') continue;
    const kind = kindOf(c);
    if (kind === 'no-op' || kind === 'read') continue;
    if (c.importing) summary.import++;
    if (kind === 'create') summary.add++;
    if (kind === 'update') summary.change++;
    if (kind === 'delete') summary.destroy++;
    if (kind === 'replace') {
      summary.replace++;
      summary.add++;
      summary.destroy++;
    }
    if (!isProxyAccount(c.type)) {
      other.push(c.address);
      continue;
    }
    const account = accountOf(c);
    const list = accounts.get(account) ?? [];
    list.push({ address: c.address, type: c.type, action: kind, description: describeChange(c) });
    accounts.set(account, list);
    attention.push(...attentionOf(c, account, usage.get(account)));
  }

  const order = [...accounts.keys()].sort((a, b) => (a === PARENT ? -1 : b === PARENT ? 1 : a.localeCompare(b)));
  return {
    summary,
    accounts: order.map((account) => ({ account, changes: accounts.get(account)! })),
    attention,
    other_resources: other.sort(),
  };
}

/** Usage figures the plan knows: from `proxyaccount_sub_account` data sources in the prior state. */
function usageByAccount(plan: Plan): Map<string, { monthly: number; total: number }> {
  const out = new Map<string, { monthly: number; total: number }>();
  for (const r of plan.priorState) {
    if (r.mode !== 'data' || r.type !== 'proxyaccount_sub_account') continue;
    const { username, monthly_bandwidth: monthly, total_bandwidth: total } = r.values;
    if (typeof username === 'string' && typeof monthly === 'number' && typeof total === 'number') out.set(username, { monthly, total });
  }
  return out;
}

function attentionOf(c: ResourceChange, account: string, usage: { monthly: number; total: number } | undefined): Attention[] {
  const kind = kindOf(c);
  const who = account === PARENT ? 'the parent account' : `sub-account '${account}'`;
  const out: Attention[] = [];
  const add = (k: Attention['kind'], message: string): void => {
    out.push({ kind: k, address: c.address, message });
  };
  switch (c.type) {
    case 'proxyaccount_sub_account':
      if (kind === 'delete') add('sub_account_deleted', `${who} is deleted: its usage history and credentials are lost for good`);
      if (kind === 'replace') {
        const renamed =
          typeof c.before.username === 'string' && c.before.username !== account
            ? `sub-account '${c.before.username}' is replaced by '${account}'`
            : `${who} is replaced`;
        add('sub_account_replaced', `${renamed}: deleted and created again, losing its usage history and credentials`);
      }
      if (kind === 'update' && c.before.active !== false && c.after.active === false) add('deactivation', `${who} is deactivated: its proxy requests get 402`);
      if (kind === 'update' && usage !== undefined) {
        const low = (attr: 'monthly_limit' | 'total_limit', used: number, name: string): void => {
          const limit = c.after[attr];
          if (typeof limit === 'number' && limit > 0 && limit !== c.before[attr] && limit < used) {
            add('limit_below_usage', `${who}: ${name} limit ${limit} GB is below the ${used} GB already used; its proxy requests get 509 at once`);
          }
        };
        low('monthly_limit', usage.monthly, 'monthly');
        low('total_limit', usage.total, 'total');
      }
      break;
    case 'proxyaccount_bearer_token': {
      const name = `token '${String(c.before.label ?? c.after.label ?? '(no label)')}' of ${who}`;
      if (kind === 'delete') add('token_deleted', `${name} is deleted: clients using it stop working`);
      if (kind === 'replace') add('token_replaced', `${name} is replaced by a new token: clients using it must be given the new one`);
      if (kind === 'update' && c.before.active === true && c.after.active === false)
        add('deactivation', `${name} is deactivated: clients using it stop working`);
      break;
    }
    case 'proxyaccount_authorized_ips':
    case 'proxyaccount_authorized_hostnames':
    case 'proxyaccount_authorized_proxies': {
      const d = listDelta(c);
      if (d !== undefined && d.removed.length > 0) add('list_removes_entries', `the list of ${who} removes ${counted(c.type, d.removed)}`);
      if (c.type === 'proxyaccount_authorized_ips' && account === PARENT && d !== undefined && d.added.length > 0) {
        add('parent_access_opened', `${counted(c.type, d.added)} may use the parent account's proxies without credentials`);
      }
      break;
    }
    case 'proxyaccount_authorized_ip':
      if (account === PARENT && (kind === 'create' || kind === 'replace')) {
        add('parent_access_opened', `IP ${ipEntry(c.after)} may use the parent account's proxies without credentials`);
      }
      break;
  }
  return out;
}

/** True when the review holds any change (other providers' included). */
export function hasChanges(r: Review): boolean {
  const s = r.summary;
  return s.add + s.change + s.destroy + s.import > 0 || r.other_resources.length > 0;
}

/** The `--fail-on` conditions. */
export type FailOn = 'destroy' | 'replace' | 'attention';

/** True when the review holds a change of the kind `failOn` names. */
export function failsOn(r: Review, failOn: FailOn): boolean {
  if (failOn === 'attention') return r.attention.length > 0;
  if (failOn === 'replace') return r.summary.replace > 0;
  return r.summary.destroy > 0;
}
