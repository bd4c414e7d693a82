// `proxyaccount export`: a live account written out as configuration that adopts it, with one
// import block per object, so `terraform plan` shows only imports. Read through the account
// store. Passwords and raw token values cannot be read back: comments say how to set them.
import type { AccountStore } from '../account';
import type { BearerToken, LabeledIp, SubAccount } from '../sdk';

/** How access lists are written. */
export type ListStyle = 'per-entry' | 'authoritative';

/** Everything export read of one account. */
export interface AccountExport {
  /** null for the parent. */
  readonly username: string | null;
  readonly details: SubAccount | undefined;
  readonly ips: readonly LabeledIp[];
  readonly hostnames: readonly string[];
  readonly tokens: readonly BearerToken[];
}

/** What export read: the parent's lists and proxies, and the named sub-accounts. */
export interface LiveAccount {
  readonly accounts: readonly AccountExport[];
  readonly proxies: readonly string[];
}

/** Reads the parent and the named sub-accounts; a name that does not exist fails, naming it. */
export async function readAccount(store: AccountStore, subAccounts: readonly string[], onStep: (what: string) => void = () => undefined): Promise<LiveAccount> {
  const accounts: AccountExport[] = [];
  for (const username of [null, ...subAccounts]) {
    onStep(username ?? '(parent)');
    const details = username === null ? undefined : await store.subAccounts.find(username);
    if (username !== null && details === undefined) throw new Error(`the parent account has no sub-account '${username}'`);
    const lists = store.account(username);
    accounts.push({ username, details, ips: await lists.ips.list(), hostnames: await lists.hostnames.list(), tokens: await lists.tokens.list() });
  }
  onStep('proxies');
  return { accounts, proxies: await store.proxies.list() };
}

/** A Terraform name for an object: letters, digits and underscores, starting with a letter. */
export function resourceName(...parts: string[]): string {
  const name = parts
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return /^[a-z]/.test(name) ? name : `x_${name}`;
}

/** One HCL block: `type "name" { attributes }`, `=` aligned as `terraform fmt` aligns it. */
function block(header: string, attrs: ReadonlyArray<[string, string]>, comments: readonly string[] = []): string {
  const width = Math.max(0, ...attrs.filter(([, v]) => !v.includes('\n')).map(([k]) => k.length));
  const lines = [...comments.map((c) => `  # ${c}`), ...attrs.map(([k, v]) => `  ${v.includes('\n') ? k : k.padEnd(width)} = ${v}`)];
  return `${header} {\n${lines.join('\n')}\n}\n`;
}

function q(s: string): string {
  return JSON.stringify(s).replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');
}

/** The written files: resources and import blocks. */
export interface HclExport {
  readonly 'account.tf': string;
  readonly 'imports.tf': string;
}

/** The live account as HCL resources plus import blocks. */
export function toHcl(live: LiveAccount, lists: ListStyle): HclExport {
  const resources: string[] = [];
  const imports: string[] = [];
  const add = (type: string, name: string, id: string, attrs: ReadonlyArray<[string, string]>, comments: readonly string[] = []): void => {
    resources.push(block(`resource "${type}" "${name}"`, attrs, comments));
    imports.push(
      block('import', [
        ['to', `${type}.${name}`],
        ['id', q(id)],
      ]),
    );
  };
  for (const a of live.accounts) {
    const owner = a.username ?? 'self';
    const userAttr: Array<[string, string]> = a.username === null ? [] : [['username', q(a.username)]];
    if (a.details !== undefined) {
      const d = a.details;
      const attrs: Array<[string, string]> = [['username', q(d.username)]];
      if (d.firstName !== undefined) attrs.push(['first_name', q(d.firstName)]);
      if (d.lastName !== undefined) attrs.push(['last_name', q(d.lastName)]);
      if (d.email !== undefined) attrs.push(['email', q(d.email)]);
      attrs.push(['monthly_limit', String(d.monthlyBandwidthLimit)], ['total_limit', String(d.totalBandwidthLimit)]);
      if (!d.active) attrs.push(['active', 'false']);
      add('proxyaccount_sub_account', resourceName(d.username), d.username, attrs, [
        'The password cannot be read back from the API. To manage it, set password_wo and',
        'password_wo_version (Terraform >= 1.11), or password; left out, the current one is kept.',
      ]);
    }
    const prefix = a.username === null ? '' : `${a.username}/`;
    if (lists === 'authoritative') {
      const entries = a.ips.map((e) => `    { ip = ${q(e.ip)}, label = ${e.label === '' ? 'null' : q(e.label)} },`);
      add('proxyaccount_authorized_ips', resourceName(owner, 'ips'), a.username ?? '_self', [
        ...userAttr,
        ['entries', entries.length === 0 ? '[]' : `[\n${entries.join('\n')}\n  ]`],
      ]);
      const domains = a.hostnames.map((d) => `    ${q(d)},`);
      add('proxyaccount_authorized_hostnames', resourceName(owner, 'hostnames'), a.username ?? '_self', [
        ...userAttr,
        ['domains', domains.length === 0 ? '[]' : `[\n${domains.join('\n')}\n  ]`],
      ]);
    } else {
      for (const e of a.ips) {
        const attrs: Array<[string, string]> = [['ip', q(e.ip)], ...(e.label === '' ? [] : [['label', q(e.label)] as [string, string]]), ...userAttr];
        add('proxyaccount_authorized_ip', resourceName(owner, 'ip', e.ip), `${prefix}${e.ip}`, attrs);
      }
      for (const d of a.hostnames) add('proxyaccount_authorized_hostname', resourceName(owner, 'host', d), `${prefix}${d}`, [['domain', q(d)], ...userAttr]);
    }
    for (const t of a.tokens) {
      const attrs: Array<[string, string]> = [];
      if (t.label !== '') attrs.push(['label', q(t.label)]);
      if (t.expiresAt !== null) attrs.push(['expires_at', q(t.expiresAt.toISOString().slice(0, 10))]);
      if (!t.isActive) attrs.push(['active', 'false']);
      attrs.push(...userAttr);
      add('proxyaccount_bearer_token', resourceName(owner, 'token', String(t.id)), `${prefix}${t.id}`, attrs, [
        'The raw token cannot be read back: after import, its `token` attribute is null.',
      ]);
    }
  }
  if (lists === 'authoritative') {
    const proxies = live.proxies.map((p) => `    ${q(p)},`);
    add('proxyaccount_authorized_proxies', 'proxies', '_self', [['proxies', proxies.length === 0 ? '[]' : `[\n${proxies.join('\n')}\n  ]`]]);
  } else {
    for (const p of live.proxies) add('proxyaccount_authorized_proxy', resourceName('proxy', p), p, [['proxy', q(p)]]);
  }
  const head = '# Written by `proxyaccount export` from the live account. Review it, then `terraform plan`: it should show only imports.\n\n';
  return { 'account.tf': head + resources.join('\n'), 'imports.tf': head + imports.join('\n') };
}
