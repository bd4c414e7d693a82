// `proxyaccount export`: a live account written out as configuration that adopts it, with one
// import block per object, so `terraform plan` shows only imports. Read through the account
// store; what each type writes comes from the resource-type catalogue. Passwords and raw token
// values cannot be read back: comments say how to set them.
import type { AccountStore, TokenList } from '../account';
import {
  accountPhrase,
  type Catalogue,
  type ExportBlock,
  type ExportValue,
  type LiveAccountView,
  RESOURCE_TYPES,
  type ResourceTypeDescriptor,
} from '../resource-types';
import { type BearerToken, isProxyAccountError, type LabeledIp, type SubAccount } from '../sdk';

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
  /** Set when the tokens could not be read (empty `tokens` then says nothing): why. */
  readonly tokensUnread?: string;
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
    accounts.push({ username, details, ips: await lists.ips.list(), hostnames: await lists.hostnames.list(), ...(await readTokens(lists.tokens)) });
  }
  onStep('proxies');
  return { accounts, proxies: await store.proxies.list() };
}

/**
 * An account's tokens. A plan without bearer tokens answers their list with 402, and that alone
 * must not stop the adoption of everything else: tokens a downgrade deactivated still exist, so
 * the account is exported without them and the output says so.
 */
async function readTokens(list: TokenList): Promise<Pick<AccountExport, 'tokens' | 'tokensUnread'>> {
  try {
    return { tokens: await list.list() };
  } catch (err) {
    if (!isProxyAccountError(err, 'ERR_PAYMENT_REQUIRED')) throw err;
    return { tokens: [], tokensUnread: 'the API refused to list them (402 Payment Required: a plan without bearer tokens)' };
  }
}

/** One line per account whose tokens could not be read: printed and written first, since tokens may exist that nothing adopts. */
export function unreadLines(live: LiveAccount): string[] {
  return live.accounts
    .filter((a) => a.tokensUnread !== undefined)
    .map((a) => `the tokens of ${accountPhrase(a.username)} could not be read: ${a.tokensUnread}; tokens may exist, and none is adopted`);
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
  // In a replacement string `$$` is one `$`: '$$$${' writes HCL's escape `$${`.
  return JSON.stringify(s).replace(/\$\{/g, '$$$${').replace(/%\{/g, '%%{');
}

/** A value as HCL: strings quoted, lists one element a line, objects inline (`{ ip = "…", label = null }`). */
function hcl(v: ExportValue, depth = 1): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return q(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const pad = '  '.repeat(depth + 1);
    return `[\n${v.map((e) => `${pad}${hcl(e, depth + 1)},`).join('\n')}\n${'  '.repeat(depth)}]`;
  }
  const entries = Object.entries(v as { readonly [key: string]: ExportValue });
  return `{ ${entries.map(([k, e]) => `${k} = ${hcl(e, depth + 1)}`).join(', ')} }`;
}

/** The written files (resources and import blocks), and what was left out. */
export interface HclExport {
  readonly 'account.tf': string;
  readonly 'imports.tf': string;
  /** One line per live object not written, saying why (also a comment at the top of account.tf). */
  readonly skipped: readonly string[];
}

/** What the catalogue's descriptors read of one account. */
function accountView(live: LiveAccount, a: AccountExport): LiveAccountView {
  return { ...a, details: a.details, proxies: a.username === null ? live.proxies : [] };
}

/** One block to write, with its Terraform name. */
interface Written {
  readonly type: ResourceTypeDescriptor;
  readonly name: string;
  readonly block: ExportBlock;
}

/**
 * The reference the children of `a` name their account by (`proxyaccount_sub_account.carol.username`)
 * when the account itself is among `written`; undefined for the parent and for a sub-account not
 * exported, whose children keep the literal.
 */
function ownerReference(a: AccountExport, written: readonly Written[]): string | undefined {
  if (a.username === null) return undefined;
  const own = written.find((w) => w.type.shape === 'account' && w.block.attributes.some(([k, v]) => k === w.type.ownerAttribute && v === a.username));
  return own === undefined ? undefined : `${own.type.typeName}.${own.name}.${own.type.ownerAttribute}`;
}

/**
 * A block's attributes as HCL. A child names its exported account by reference, not by the
 * literal username: renaming the account then replaces each child into the renamed one (a plan
 * review shows) instead of leaving the code declaring objects the API deleted with the old one.
 */
function attributesOf(w: Written, a: AccountExport, owner: string | undefined): Array<[string, string]> {
  return w.block.attributes.map(([k, v]) => {
    const byReference = owner !== undefined && w.type.shape !== 'account' && k === w.type.ownerAttribute && v === a.username;
    return [k, byReference ? owner : hcl(v)];
  });
}

/**
 * The live account as HCL resources plus import blocks: each type the catalogue exports in the
 * chosen list style writes its blocks, account by account. Import IDs stay literal.
 */
export function toHcl(live: LiveAccount, lists: ListStyle, catalogue: Catalogue = RESOURCE_TYPES): HclExport {
  const resources: string[] = [];
  const imports: string[] = [];
  // Names fold every other character to `_`: `lo.a` and `lo-a` would both be `lo_a`, which
  // Terraform refuses. A later one gets a number, so every object is written.
  const taken = new Set<string>();
  const unique = (typeName: string, name: string): string => {
    let n = 1;
    let candidate = name;
    while (taken.has(`${typeName}.${candidate}`)) candidate = `${name}_${++n}`;
    taken.add(`${typeName}.${candidate}`);
    return candidate;
  };
  const skipped = unreadLines(live);
  for (const a of live.accounts) {
    // All of an account's blocks are named first, so its children can refer to the account's block.
    const written: Written[] = [];
    for (const d of catalogue.values()) {
      if (d.export === undefined || (d.export.lists !== 'any' && d.export.lists !== lists)) continue;
      const view = accountView(live, a);
      skipped.push(...(d.export.leftOut?.(view) ?? []));
      for (const b of d.export.blocks(view)) written.push({ type: d, name: unique(d.typeName, resourceName(...b.name)), block: b });
    }
    const owner = ownerReference(a, written);
    for (const w of written) {
      resources.push(block(`resource "${w.type.typeName}" "${w.name}"`, attributesOf(w, a, owner), w.block.comments ?? []));
      imports.push(
        block('import', [
          ['to', `${w.type.typeName}.${w.name}`],
          ['id', q(w.block.importId)],
        ]),
      );
    }
  }
  const head = '# Written by `proxyaccount export` from the live account. Review it, then `terraform plan`: it should show only imports.\n\n';
  // An import block stays bound to its resource: once the object is in state it does nothing, but
  // removing the resource then fails every plan ("Configuration for import target does not exist").
  const done = '# Once the apply has imported everything, delete this file: a kept import block makes removing its resource a plan error.\n\n';
  const notes = skipped.length === 0 ? '' : `# Not exported (each line says why):\n${skipped.map((line) => `# - ${line}`).join('\n')}\n\n`;
  return { 'account.tf': head + notes + resources.join('\n'), 'imports.tf': head + done + imports.join('\n'), skipped };
}
