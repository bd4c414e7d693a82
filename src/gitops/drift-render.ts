// A drift report as Markdown (for an issue or a chat message) or JSON. The Markdown fits a size
// limit (GitHub takes at most 65,536 characters in an issue's body), whatever the account holds:
// each section's title keeps its count, and a list that does not fit is cut with how many more
// there are and where they are: the JSON report, never cut, which names its file when the run
// writes one beside the Markdown (`--json-out`). The drift issue is as public as a
// review comment: text from the plan or the account (addresses, which hold whatever a for_each key
// holds; usernames, labels, messages naming them) never shapes it, by the review's own rules.
import { RESOURCE_TYPES } from '../resource-types';
import type { DriftReport, HeldObject, NotScanned, PendingChange, UnmanagedObject } from './drift';
import { codeSpan, escapeMarkdown } from './markdown';

/** The Markdown report's default size limit: GitHub's limit on an issue's or a comment's body. */
export const DRIFT_MARKDOWN_LIMIT = 65_536;
/** The smallest limit the Markdown accepts: room for the verdict and every section's title and count. */
export const MIN_DRIFT_MARKDOWN_LIMIT = 4_000;
/** The marker a CI job finds its own issue by. */
export const DRIFT_MARKER = '<!-- proxyaccount-drift -->';
/** Items each section shows before any section gets more, so that a long list does not crowd the others out. */
const FIRST_ITEMS = 10;

/** The report as stable, documented JSON. */
export function driftJson(r: DriftReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** A value from the plan or the account, shown literally (as code). */
function show(v: unknown): string {
  return codeSpan(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
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

/** For a list changed outside Terraform: the entry resources that declare what it leaves out, and add it back at every apply (maybe this change). */
function undoneNote(entries: readonly string[] | undefined): string {
  if (entries === undefined || entries.length === 0) return '';
  return ` (${entries.map(codeSpan).join(', ')} ${entries.length === 1 ? 'declares an entry' : 'declare entries'} this list leaves out, and ${entries.length === 1 ? 'adds it' : 'add them'} back at every apply)`;
}

function object(o: UnmanagedObject): string {
  return `- ${escapeMarkdown(o.account)}: ${o.kind} ${show(o.value)}${o.label === '' ? '' : ` (label ${show(o.label)})`}`;
}

/** An unmanaged object, with the list that keeps it undeclared, if one does. */
function unmanagedLine(o: UnmanagedObject): string {
  return o.kept_by === undefined
    ? object(o)
    : `${object(o)}: kept in the state of ${codeSpan(o.kept_by)}, whose code does not declare it (kept by the plan: ignore_changes)`;
}

/** Why the plan keeps a change made outside Terraform, or an entry the code does not declare. */
const KEPT_NOTE = 'kept by the plan: ignore_changes, or code that already matches';

/** Under the unmanaged objects when a list keeps some of them undeclared. */
const KEPT_UNDECLARED_AFTER =
  "_Kept in the state of a list whose code does not declare it_: `terraform plan` does not remove it (the list's `ignore_changes`), so no apply does. " +
  'Declare it in the code, or remove it from the account.';

/** Under a section that holds what the plan keeps: what that means, and what ends it. */
const KEPT_AFTER =
  '_Kept by the plan_: `terraform plan` does not change it back (`ignore_changes`, or code that already matches), so no apply puts it back, ' +
  'and the next apply of any change writes it into the state. Where the code should not allow it, declare the value without `ignore_changes`.';

function heldLine(o: HeldObject): string {
  const whose =
    o.provider_account === 'this'
      ? `which uses this account too (its own run checks it: ${codeSpan(`--provider ${o.provider}`)})`
      : 'whose account could not be confirmed';
  return `${object(o)}: held by a resource of provider configuration ${show(o.provider)}, ${whose}`;
}

/**
 * A pending change, with what it puts back: what changed outside Terraform, or what is not in the
 * account (whoever removed it). A change that resources of this configuration undo at every apply
 * says so instead: what it puts back is theirs, not a change outside Terraform.
 */
function pendingLine(p: PendingChange, changed: ReadonlySet<string>, gone: ReadonlySet<string>): string {
  const undone = p.undone_by ?? [];
  const puts =
    p.deposed === true
      ? undefined
      : undone.length > 0
        ? `undone by ${undone.map(codeSpan).join(', ')} at every apply: a list resource and entry resources of one account's list undo each other`
        : changed.has(p.address)
          ? 'puts back the change outside Terraform above'
          : gone.has(p.address)
            ? 'puts back what is not in the account above'
            : undefined;
  const notes = [...(p.deferred ? ['deferred to a later plan'] : []), ...(puts === undefined ? [] : [puts])];
  return `- ${codeSpan(p.address)}: ${escapeMarkdown(p.description)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** What the report leaves out on purpose: resources no longer in the code, and (when the run was told so) the other configurations, checked by runs of their own. */
function notCheckedHere(r: DriftReport): string[] {
  const line = (n: NotScanned): string[] => {
    const count = `${n.resources} resource${n.resources === 1 ? '' : 's'}`;
    if (n.provider === null)
      return [`- ${count} of the state no longer in the code: not counted as managed, so their objects show as not managed by any resource.`];
    if (!r.others_checked_elsewhere) return [];
    return [
      `- ${count} of provider configuration ${show(n.provider)}: its account is checked by a run of its own (${codeSpan(`--provider ${n.provider}`)}), ` +
        `as this run was told by ${codeSpan(`--provider ${r.scanned_provider ?? ''}`)}; their drift and pending changes are above.`,
    ];
  };
  return r.not_scanned.flatMap(line);
}

/** The verdict: drift, or what "no drift" was checked against, and never more than that. */
function verdict(r: DriftReport): string {
  if (r.drifted) return r.compared_with === 'code' ? 'The account differs from the code.' : 'The account differs from the Terraform state.';
  if (!r.complete) return 'No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.';
  const stateOnly = r.compared_with === 'state' ? ' Changes of the code not yet applied were not checked.' : '';
  const against = r.compared_with === 'code' ? 'the code' : 'the Terraform state';
  if (r.scanned_provider === null) {
    return `No drift: the managed objects match ${against}.${stateOnly} The account was not scanned for objects no resource manages (--no-scan).`;
  }
  const others = r.not_scanned.some((n) => n.provider !== null) || r.held_by_other_configurations.length > 0;
  return `No drift: ${others ? `the account of provider configuration ${show(r.scanned_provider)}` : 'the account'} matches ${against}.${stateOnly}`;
}

/** One section of the Markdown: its title (with the count), its items, and lines after them. */
interface Section {
  readonly title: string;
  readonly items: readonly string[];
  readonly after: readonly string[];
}

/** Where the whole report is: the JSON file written beside this one, or how to get it. */
function jsonReport(jsonFile: string | undefined): string {
  return jsonFile === undefined ? 'the JSON report (`--format json`)' : `the JSON report ${codeSpan(jsonFile)}`;
}

function moreLine(n: number, jsonFile: string | undefined): string {
  return `- _… ${n} more, see ${jsonReport(jsonFile)}._`;
}

function sectionLines(s: Section, shown: number, jsonFile: string | undefined): string[] {
  const hidden = s.items.length - shown;
  return [
    `### ${s.title}`,
    '',
    ...s.items.slice(0, shown),
    ...(hidden > 0 ? [moreLine(hidden, jsonFile)] : []),
    ...(s.after.length > 0 ? ['', ...s.after] : []),
    '',
  ];
}

function sectionsOf(r: DriftReport): Section[] {
  const changed = new Set(r.changed.map((c) => c.address));
  // A list's pending change names the entry resources that undo it.
  const undoers = new Map(r.pending.filter((p) => RESOURCE_TYPES.get(p.type)?.shape === 'list').map((p) => [p.address, p.undone_by ?? []]));
  const gone = new Set(r.deleted.map((d) => d.address));
  const whose = (t: DriftReport['expired_tokens'][number]): string =>
    t.managed ? '' : t.held_by !== undefined ? ` (held by a resource of provider configuration ${show(t.held_by)})` : ' (not managed)';
  const expired = r.expired_tokens.map((t) => `- ${escapeMarkdown(t.account)}: token ${t.token_id} ${show(t.label)} expired ${t.expired_at}${whose(t)}`);
  const here = notCheckedHere(r);
  const all: Section[] = [
    {
      title: `Changed outside Terraform (${r.changed.length})`,
      items: r.changed.map(
        (c) =>
          `- ${codeSpan(c.address)}: ${codeSpan(c.attribute)} ${difference(c.recorded, c.live)}${undoneNote(undoers.get(c.address))}${c.kept_by_plan === true ? ` (${KEPT_NOTE})` : ''}`,
      ),
      after: r.changed.some((c) => c.kept_by_plan === true) ? [KEPT_AFTER] : [],
    },
    {
      // Neutral: Terraform's own apply may have removed them (a list, a sub-account deleted); the reason says so when known.
      title: `Not in the account (${r.deleted.length})`,
      items: r.deleted.map(
        (d) => `- ${codeSpan(d.address)}${d.value === undefined ? '' : ` ${show(d.value)}`}${d.reason === undefined ? '' : `: ${escapeMarkdown(d.reason)}`}`,
      ),
      after: [],
    },
    {
      title: `Not applied: the code differs from the account (${r.pending.length} change${r.pending.length === 1 ? '' : 's'})`,
      items: r.pending.map((p) => pendingLine(p, changed, gone)),
      after: ['`terraform plan` shows them in full; applying the code makes them.'],
    },
    {
      title: `Not managed by any resource (${r.unmanaged.length})`,
      items: r.unmanaged.map(unmanagedLine),
      after: r.unmanaged.some((o) => o.kept_by !== undefined) ? [KEPT_UNDECLARED_AFTER] : [],
    },
    {
      title: `Held by a resource of another provider configuration (${r.held_by_other_configurations.length})`,
      items: r.held_by_other_configurations.map(heldLine),
      after: [],
    },
    {
      title: `Leftover ephemeral tokens (${r.ephemeral_leftovers.length})`,
      items: r.ephemeral_leftovers.map(object),
      after: ['Delete them with `proxyaccount tokens prune`.'],
    },
    {
      title: `Managed twice, a hazard, not drift (${r.managed_twice.length})`,
      items: r.managed_twice.map((m) => `- ${codeSpan(m.address)}: ${escapeMarkdown(m.message)}`),
      after: [],
    },
    { title: `Expired tokens, a state, not drift (${expired.length})`, items: expired, after: ['Rotate a managed one by setting a later `expires_at`.'] },
    { title: `Not checked (${r.incomplete.length})`, items: r.incomplete.map((i) => `- ${escapeMarkdown(i)}`), after: [] },
    { title: `Not checked here (${here.length})`, items: here, after: [] },
  ];
  return [...all.filter((s) => s.items.length > 0), { title: 'Limits', items: r.limits.map((l) => `- ${escapeMarkdown(l)}`), after: [] }];
}

/** How many items of each section fit in `room` characters: a few of each first (what is not checked first of all), then the rest in order. */
function itemsThatFit(sections: readonly Section[], room: number): number[] {
  const shown = sections.map(() => 0);
  let left = room;
  const take = (i: number, upTo: number): void => {
    const s = sections[i]!;
    while (shown[i]! < Math.min(upTo, s.items.length)) {
      const cost = s.items[shown[i]!]!.length + 1;
      if (cost > left) return;
      left -= cost;
      shown[i]!++;
    }
  };
  const first = [...sections.keys()].sort((a, b) => rank(sections[a]!) - rank(sections[b]!));
  for (const i of first) take(i, FIRST_ITEMS);
  for (const i of sections.keys()) take(i, Number.POSITIVE_INFINITY);
  return shown;
}

/** What is not checked, and the limits, are shown before the lists: they decide how to read them. */
function rank(s: Section): number {
  return s.title.startsWith('Not checked') ? 0 : s.title === 'Limits' ? 1 : 2;
}

/** Options of {@link driftMarkdown}. */
export interface DriftMarkdownOptions {
  /** The file the same run writes the JSON report to: a cut list names it. @default none: a cut list points to `--format json` */
  readonly jsonFile?: string;
}

/** The report as Markdown, at most `limit` characters (at least {@link MIN_DRIFT_MARKDOWN_LIMIT}). */
export function driftMarkdown(r: DriftReport, limit = DRIFT_MARKDOWN_LIMIT, opts: DriftMarkdownOptions = {}): string {
  if (!Number.isInteger(limit) || limit < MIN_DRIFT_MARKDOWN_LIMIT) {
    throw new RangeError(`the Markdown report's limit must be a whole number of characters, at least ${MIN_DRIFT_MARKDOWN_LIMIT} (got ${limit})`);
  }
  const head = [DRIFT_MARKER, '## proxyaccount drift report', '', `**${verdict(r)}**`, ''];
  const sections = sectionsOf(r);
  const render = (shown: readonly number[]): string => `${[...head, ...sections.flatMap((s, i) => sectionLines(s, shown[i]!, opts.jsonFile))].join('\n')}\n`;
  // With nothing shown, every "… N more" line has its largest count: showing items only shortens them.
  const skeleton = render(sections.map(() => 0)).length;
  const text = render(itemsThatFit(sections, limit - skeleton));
  if (text.length <= limit) return text;
  // Only a skeleton longer than the limit gets here (a very long verdict): cut at a line's end.
  const note = `\n_… cut to fit, see ${jsonReport(opts.jsonFile)}._\n`;
  const cut = text.lastIndexOf('\n', limit - note.length);
  return `${text.slice(0, Math.max(cut, 0))}${note}`;
}
