// A drift report as Markdown (for an issue or a chat message) or JSON.
import type { DriftReport, UnmanagedObject } from './drift';

/** The report as stable, documented JSON. */
export function driftJson(r: DriftReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `\`${s.replace(/`/g, "'")}\``;
}

/** `recorded → live`; for lists and sets, what was added and removed. */
function difference(recorded: unknown, live: unknown): string {
  if (!Array.isArray(recorded) || !Array.isArray(live)) return `${show(recorded)} → ${show(live)}`;
  const key = (x: unknown): string => JSON.stringify(x);
  const before = new Set(recorded.map(key));
  const after = new Set(live.map(key));
  const item = (x: unknown): string => {
    const o = x as { ip?: unknown; label?: unknown };
    return typeof o === 'object' && o !== null && typeof o.ip === 'string'
      ? `${o.ip}${typeof o.label === 'string' && o.label !== '' ? ` (${o.label})` : ''}`
      : String(x);
  };
  const added = live.filter((x) => !before.has(key(x))).map((x) => `+${show(item(x))}`);
  const removed = recorded.filter((x) => !after.has(key(x))).map((x) => `−${show(item(x))}`);
  return [...added, ...removed].join(' ');
}

function object(o: UnmanagedObject): string {
  return `- ${o.account}: ${o.kind} ${show(o.value)}${o.label === '' ? '' : ` (label ${show(o.label)})`}`;
}

/** The report as Markdown. */
export function driftMarkdown(r: DriftReport): string {
  const out = ['<!-- proxyaccount-drift -->', '## proxyaccount drift report', ''];
  out.push(r.drifted ? '**The account differs from the code.**' : '**No drift: the account matches the code.**', '');
  if (r.changed.length > 0)
    out.push('### Changed outside Terraform', '', ...r.changed.map((c) => `- \`${c.address}\`: ${c.attribute} ${difference(c.recorded, c.live)}`), '');
  if (r.deleted.length > 0) out.push('### Deleted outside Terraform', '', ...r.deleted.map((d) => `- \`${d.address}\``), '');
  if (r.unmanaged.length > 0) out.push('### Not managed by any resource', '', ...r.unmanaged.map(object), '');
  if (r.ephemeral_leftovers.length > 0) {
    out.push('### Leftover ephemeral tokens', '', ...r.ephemeral_leftovers.map(object), '', 'Delete them with `proxyaccount tokens prune`.', '');
  }
  if (r.expired_tokens.length > 0) {
    out.push(
      '### Expired tokens (a state, not drift)',
      '',
      ...r.expired_tokens.map((t) => `- ${t.account}: token ${t.token_id} ${show(t.label)} expired ${t.expired_at}${t.managed ? '' : ' (not managed)'}`),
      '',
    );
    out.push('Rotate a managed one by setting a later `expires_at`.', '');
  }
  out.push('### Limits', '', ...r.limits.map((l) => `- ${l}`), '');
  return `${out.join('\n')}\n`;
}
