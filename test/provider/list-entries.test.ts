// The diff and the replay that every authoritative list shares, on a toy list whose declared
// entries are "name=tag" and whose listed entries are { name, tag }: a listed entry stands for
// the declared one of the same name, a different tag means remove and add again, and a declared
// "*name" stands for the same entry as "name" (the way a proxy's forms do).
import { diff, dropped, type ListAccess, type ListEntries, removals, replay } from '../../src/provider/access/list-entries';
import { applyListOps } from '../../src/provider/access/list-sync';
import { PaymentRequiredError } from '../../src/sdk';

interface Listed {
  readonly name: string;
  readonly tag: string;
}

const nameOf = (d: string): string => d.split('=')[0]!.replace(/^\*/, '');
const tagOf = (d: string): string => d.split('=')[1] ?? '';

const toy: ListEntries<string, Listed> = {
  noun: 'thing',
  pair: (listed, declared) => declared.map((d) => listed.find((r) => r.name === nameOf(d))),
  upToDate: (d, r) => tagOf(d) === r.tag,
  sameEntry: (a, b) => nameOf(a) === nameOf(b),
  listed: (d) => ({ name: nameOf(d), tag: tagOf(d) }),
  key: (r) => r.name,
  name: (r) => r.name,
  shown: (r) => `${r.name} (${r.tag})`,
  toState: (listed) => listed.map((r) => `${r.name}=${r.tag}`),
};

/**
 * Records the writes; `failing` names entries whose write throws, `full` entries whose add the
 * API refuses for the plan's limit (402) until `removalsToRoom` removals were sent.
 */
function recorder(
  failing: readonly string[] = [],
  full: { readonly names: readonly string[]; readonly removalsToRoom: number } = { names: [], removalsToRoom: 0 },
): { access: ListAccess<string, Listed>; sent: string[] } {
  const sent: string[] = [];
  const write = async (what: string, name: string): Promise<void> => {
    sent.push(`${what} ${name}`);
    if (failing.includes(name)) throw new Error(`${what} ${name} failed`);
    const removed = sent.filter((w) => w.startsWith('remove ')).length;
    if (what === 'add' && full.names.includes(name) && removed < full.removalsToRoom) {
      throw new PaymentRequiredError({ method: 'POST', path: '/api/thing/', operation: `add thing '${name}'`, status: 402, responseText: 'limit reached' });
    }
  };
  return {
    sent,
    access: {
      list: async () => [],
      fresh: async () => [],
      add: (d) => write('add', nameOf(d)),
      remove: (r) => write('remove', r.name),
    },
  };
}

const before: Listed[] = [
  { name: 'a', tag: 'x' },
  { name: 'b', tag: 'x' },
  { name: 'c', tag: 'x' },
];

describe('the shared list diff', () => {
  it('keeps what is declared as it is, re-adds what changed, removes the rest, adds the new; removals first', () => {
    const { access } = recorder();
    const ops = diff(toy, access, before, ['a=x', 'b=y', 'd=x']);
    expect(ops.map((o) => o.description)).toEqual(["remove thing 'b'", "remove thing 'c'", "add thing 'b'", "add thing 'd'"]);
    expect(ops.map((o) => o.key)).toEqual(['b', 'c', 'b', 'd']);
  });

  it('adds once what several declared entries stand for', () => {
    const { access } = recorder();
    const ops = diff(toy, access, [], ['e=x', '*e=x']);
    expect(ops.map((o) => o.description)).toEqual(["add thing 'e'"]);
  });

  it('names what a plan removes: listed entries nothing declared stands for, and state entries dropped', () => {
    expect(removals(toy, before, ['a=x', 'b=changed'])).toEqual(['c (x)']);
    expect(dropped(toy, ['a=x', 'b=x'], ['b=y'])).toEqual(['a (x)']);
  });
});

describe('the shared replay after failed writes', () => {
  it('is the list before, without the removals and with the additions that succeeded', async () => {
    const { access, sent } = recorder(['d']);
    const ops = diff(toy, access, before, ['a=x', 'b=y', 'd=x', 'e=x']);
    const result = await applyListOps(ops);
    expect(sent).toEqual(expect.arrayContaining(['remove b', 'remove c', 'add b', 'add d', 'add e']));
    const left = replay(toy, before, result.done);
    expect(toy.toState(left, [])).toEqual(['a=x', 'b=y', 'e=x']);
  });

  it('with adds first, removes nothing once an add failed: the entries it was to replace stay', async () => {
    const { access, sent } = recorder(['d']);
    const ops = diff(toy, access, before, ['a=x', 'd=x', 'e=x']);
    const result = await applyListOps(ops, { addsFirst: true });
    expect(sent.sort()).toEqual(['add d', 'add e']);
    expect(result.failed.map((f) => f.op.description)).toEqual(["add thing 'd'"]);
    expect(result.skipped.map((o) => o.description).sort()).toEqual(["remove thing 'b'", "remove thing 'c'"]);
    expect(toy.toState(replay(toy, before, result.done), [])).toEqual(['a=x', 'b=x', 'c=x', 'e=x']);
  });

  it('with adds first, sends an add refused for the plan limit again once the removals made room', async () => {
    const { access, sent } = recorder([], { names: ['d'], removalsToRoom: 1 });
    const ops = diff(toy, access, before, ['a=x', 'b=x', 'd=x']);
    const result = await applyListOps(ops, { addsFirst: true });
    expect(sent).toEqual(['add d', 'remove c', 'add d']);
    expect(result.failed).toEqual([]);
    expect(toy.toState(replay(toy, before, result.done), [])).toEqual(['a=x', 'b=x', 'd=x']);
  });

  it('skips the add of an entry whose removal failed, so the old entry stays', async () => {
    const { access, sent } = recorder(['b']);
    const ops = diff(toy, access, before, ['a=x', 'b=y', 'c=x']);
    const result = await applyListOps(ops);
    expect(sent).toEqual(['remove b']);
    expect(result.skipped.map((o) => o.description)).toEqual(["add thing 'b'"]);
    expect(toy.toState(replay(toy, before, result.done), [])).toEqual(['a=x', 'b=x', 'c=x']);
  });
});
