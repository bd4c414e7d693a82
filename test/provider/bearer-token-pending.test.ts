// proxyaccount_bearer_token when a create's answer is lost and reading the account back fails too,
// against a real emulator, driven as Terraform drives it (the private bytes included): the create
// returns a state with its error, which Terraform saves tainted, holding no token id and, as its
// id, the span of the API's time in which the create ran; the next refresh, or a delete planned
// without one, finds what the create made: a token of its label created in that span (none: gone,
// one: adopted, so the tainted replacement deletes it, several: an error, nothing deleted). A token
// of that label created later, by another workspace say, is never taken for it.
import type { CtyValue } from '../../src/protocol/cty';
import type { Diagnostic } from '../../src/protocol/types';
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, decodeObject, dv, errors, NO_PRIVATE, obj } from './harness';

const schema = bearerTokenResource.schema;
const TYPE = 'proxyaccount_bearer_token';
/** One request each, so that the faults below are consumed exactly. */
const NO_RETRIES = { PROXYACCOUNT_MAX_RETRIES: '0' };

type State = { [k: string]: CtyValue };
let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'pend-sub' });
});

afterAll(async () => {
  await p?.close();
});

/** Terraform's create plan of `config` (no prior state: a new or a tainted object). */
async function planCreate(server: Awaited<ReturnType<EmulatedProvider['newServer']>>, config: Record<string, CtyValue>): Promise<State> {
  const cfg = obj(schema, config);
  const proposed = { ...cfg, active: null };
  const res = await server.planResourceChange({
    typeName: TYPE,
    priorState: dv(schema, null),
    proposedNewState: dv(schema, proposed),
    config: dv(schema, cfg),
    priorPrivate: NO_PRIVATE,
  });
  expect(errors(res.diagnostics)).toEqual([]);
  return decodeObject(schema, res.plannedState);
}

async function apply(
  server: Awaited<ReturnType<EmulatedProvider['newServer']>>,
  prior: State | null,
  planned: State | null,
  config: Record<string, CtyValue> | null,
  plannedPrivate: Uint8Array = NO_PRIVATE,
): Promise<{ state: State | null; private: Uint8Array | undefined; diagnostics: Diagnostic[] }> {
  const res = await server.applyResourceChange({
    typeName: TYPE,
    priorState: dv(schema, prior),
    plannedState: dv(schema, planned),
    config: dv(schema, config === null ? null : obj(schema, config)),
    plannedPrivate,
  });
  return { state: decode(schema, res.newState) as State | null, private: res.private, diagnostics: res.diagnostics };
}

async function read(state: State, priv: Uint8Array | undefined) {
  const server = await p.newServer();
  const res = await server.readResource({ typeName: TYPE, currentState: dv(schema, state), private: priv ?? NO_PRIVATE, clientCapabilities: undefined });
  return { state: decode(schema, res.newState) as State | null, private: res.private, diagnostics: res.diagnostics };
}

/**
 * Faults for the next create: the listing before the send passes, the create's answer is lost
 * (`made`: after the token is made; else the connection drops before anything is made), and the
 * listing that reads back after it fails.
 */
async function loseCreateAndReadBack(made: boolean): Promise<void> {
  await p.emu.control.fault({ path: '/api/tokens/', method: 'GET', pass: true, count: 1 });
  await p.emu.control.fault({ path: '/api/token/create/', method: 'POST', ...(made ? { dropResponse: true } : { reset: true }), count: 1 });
  await p.emu.control.fault({ path: '/api/tokens/', method: 'GET', status: 503, count: 1 });
}

/** A create of `config` whose outcome stays unknown, as Terraform runs it (plan, then apply). */
async function createLost(config: Record<string, CtyValue>, made = true, server?: Awaited<ReturnType<EmulatedProvider['newServer']>>) {
  const s = server ?? (await p.newServer(NO_RETRIES));
  const planned = await planCreate(s, config);
  await loseCreateAndReadBack(made);
  return apply(s, null, planned, config);
}

const live = async (username?: string) => p.admin.tokens.list(username === undefined ? {} : { username });
const privateJson = (bytes: Uint8Array | undefined): unknown =>
  bytes === undefined || bytes.length === 0 ? undefined : JSON.parse(Buffer.from(bytes).toString('utf8'));
const ofLabel = async (label: string, username?: string) => (await live(username)).filter((t) => t.label === label);

/** The span a pending id holds, in ms since the epoch. */
function span(id: CtyValue): { from: number; to: number } {
  const m = /^pending:(\S+)\/(\S+)$/.exec(String(id));
  if (m === null) throw new Error(`${String(id)} is not a pending id`);
  return { from: Date.parse(m[1]!), to: Date.parse(m[2]!) };
}

/** A pending state as this version saves it, for a create that ran from `from` to `to` (ms). */
const pendingState = (label: string, from: number, to: number): State =>
  obj(schema, { id: `pending:${new Date(from).toISOString()}/${new Date(to).toISOString()}`, label, active: true });

/** The record cf629d4 kept in private state, beside a state with no id. */
const legacyRecord = (knownBefore: number[]): Uint8Array =>
  new Uint8Array(Buffer.from(JSON.stringify({ create_pending: { tokens_known_before: knownBefore } }), 'utf8'));

/** A delete as Terraform sends it for a destroy, or for a tainted object's replacement (no private bytes). */
const destroy = async (state: State, plannedPrivate: Uint8Array = NO_PRIVATE) => apply(await p.newServer(), state, null, null, plannedPrivate);

describe('a create whose answer and read-back are lost', () => {
  it('returns the planned object with the error (Terraform saves it tainted): no token id, and the span it ran in as its id', async () => {
    const applied = await createLost({ label: 'lost-one' });
    const [error, ...more] = errors(applied.diagnostics);
    expect(more).toEqual([]);
    expect(error).toMatchObject({ summary: 'Unable to create bearer token' });
    const id = applied.state!['id'];
    expect(id).toMatch(/^pending:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // What really happens next, for a token: not the refresh promise other writes make.
    const detail = (error!.detail ?? '').replace(/\s+/g, ' ');
    expect(detail).toMatch(/A token labelled 'lost-one' may now exist whose value nobody received/);
    expect(detail).toContain(`its id ${String(id)} is the span of the API's time in which it ran`);
    expect(detail).toMatch(/a token with this label created in that span \(give or take 2 s\) is taken as the one it made and replaced/);
    expect(detail).toMatch(/A token of this label created later is never taken for it/);
    expect(detail).not.toMatch(/shows what exists/);
    expect(applied.state).toEqual({ ...obj(schema, { label: 'lost-one', active: true }), id });
    // The record is in the state: nothing rests on private bytes, which a replacement's delete never gets.
    expect(privateJson(applied.private)).toBeUndefined();
    // The token was made in that span (the API gives whole seconds); nothing in the state names it yet.
    const [made, ...others] = await ofLabel('lost-one');
    expect(others).toEqual([]);
    const { from, to } = span(id);
    expect(made!.createdAt.getTime()).toBeGreaterThanOrEqual(from - 1000);
    expect(made!.createdAt.getTime()).toBeLessThanOrEqual(to);
  });

  it('sends no other create of that label in the same run: its token could not be told apart later', async () => {
    const server = await p.newServer(NO_RETRIES);
    await createLost({ label: 'lost-serial' }, true, server);
    const planned = await planCreate(server, { label: 'lost-serial' });
    const second = await apply(server, null, planned, { label: 'lost-serial' });
    expect(second.state).toBeNull();
    expect(errors(second.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to create bearer token',
        detail: expect.stringMatching(/was not sent: an earlier create of tokens labelled 'lost-serial'/),
      }),
    ]);
    expect(await ofLabel('lost-serial')).toHaveLength(1);
    // Another label is not held up.
    const other = await apply(server, null, await planCreate(server, { label: 'lost-other' }), { label: 'lost-other' });
    expect(errors(other.diagnostics)).toEqual([]);
  });
});

describe('the next refresh of such a create', () => {
  it('adopts the one token it made (no value); the tainted replacement deletes it and leaves one token', async () => {
    const applied = await createLost({ label: 'lost-adopt', username: 'pend-sub' });
    const [made] = await ofLabel('lost-adopt', 'pend-sub');
    const refreshed = await read(applied.state!, applied.private);
    expect(errors(refreshed.diagnostics)).toEqual([]);
    expect(refreshed.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        detail: expect.stringMatching(
          new RegExp(
            `bearer token ${made!.id} 'lost-adopt' of sub-account 'pend-sub' was created while a create of this label whose answer was lost was running, from \\S+ to \\S+ \\(the API's time, give or take 2 s\\), and no other token of this label was`,
            'i',
          ),
        ),
      }),
    ]);
    expect(refreshed.state).toMatchObject({ id: `pend-sub/${made!.id}`, token_id: made!.id, label: 'lost-adopt', username: 'pend-sub', token: null });

    // Terraform replaces a tainted object: a create plan, then the delete of the old object (its
    // plan carried no private bytes), then the create.
    const server = await p.newServer();
    const planned = await planCreate(server, { label: 'lost-adopt', username: 'pend-sub' });
    const deleted = await apply(server, refreshed.state, null, null);
    expect(deleted.diagnostics).toEqual([]);
    const created = await apply(server, null, planned, { label: 'lost-adopt', username: 'pend-sub' });
    expect(errors(created.diagnostics)).toEqual([]);
    const tokens = await ofLabel('lost-adopt', 'pend-sub');
    expect(tokens.map((t) => t.id)).toEqual([created.state!['token_id']]);
    expect(created.state!['token']).toMatch(/^\S+$/);
  });

  it('removes it from state when the create made nothing, so the plan creates it again', async () => {
    const applied = await createLost({ label: 'lost-none' }, false);
    expect(errors(applied.diagnostics)).toHaveLength(1);
    expect(applied.state!['token_id']).toBeNull();
    expect(await ofLabel('lost-none')).toEqual([]);
    const refreshed = await read(applied.state!, applied.private);
    expect(refreshed.diagnostics).toEqual([]);
    expect(refreshed.state).toBeNull();
  });

  it('names every candidate and deletes none when several tokens of the label were created while it ran', async () => {
    // Two tokens made by other clients within the span a pending create ran in.
    await p.admin.tokens.create({ label: 'lost-many' });
    await p.admin.tokens.create({ label: 'lost-many' });
    const made = await ofLabel('lost-many');
    const times = made.map((t) => t.createdAt.getTime());
    const pending = pendingState('lost-many', Math.min(...times), Math.max(...times));
    const refreshed = await read(pending, NO_PRIVATE);
    expect(errors(refreshed.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to read bearer token',
        detail: expect.stringMatching(
          new RegExp(`Tokens ${made.map((t) => t.id).join(', ')} with this label were created while it ran.*Nothing was deleted.*terraform state rm`, 's'),
        ),
      }),
    ]);
    // The state stays as it was, so the next plan asks again.
    expect(refreshed.state).toEqual(pending);

    // A destroy (or a replacement planned without a refresh) fails the same way and keeps the
    // object, id included: the record survives the failed delete.
    const destroyed = await destroy(pending);
    expect(errors(destroyed.diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to delete bearer token' })]);
    expect(destroyed.state).toEqual(pending);
    expect((await ofLabel('lost-many')).map((t) => t.id)).toEqual(made.map((t) => t.id));
  });
});

describe('a token of the same label created after the create ran (another workspace, hours later)', () => {
  it('is never adopted: with nothing made, the pending object is gone and that token untouched, by a refresh and by a delete', async () => {
    const applied = await createLost({ label: 'lost-later' }, false);
    await p.emu.control.advanceClock(3600);
    const theirs = await p.admin.tokens.create({ label: 'lost-later' });
    // Named, though not taken: an API that served the lost create late would have made it.
    const laterWarning = [
      expect.objectContaining({
        severity: 'warning',
        summary: 'Bearer tokens of this label created after a lost create',
        detail: expect.stringContaining(
          `token ${theirs.id} (created ${theirs.createdAt.toISOString()}) with this label was created after its lost create gave up`,
        ),
      }),
    ];
    const refreshed = await read(applied.state!, applied.private);
    expect(refreshed.diagnostics).toEqual(laterWarning);
    expect(refreshed.state).toBeNull();
    const destroyed = await destroy(applied.state!);
    expect(destroyed.diagnostics).toEqual(laterWarning);
    expect(destroyed.state).toBeNull();
    expect((await ofLabel('lost-later')).map((t) => t.id)).toEqual([theirs.id]);
  });

  it('is not a candidate beside the token the create made: that one alone is adopted and deleted', async () => {
    const applied = await createLost({ label: 'lost-mixed' });
    const [made] = await ofLabel('lost-mixed');
    await p.emu.control.advanceClock(3600);
    const theirs = await p.admin.tokens.create({ label: 'lost-mixed' });
    const refreshed = await read(applied.state!, applied.private);
    expect(errors(refreshed.diagnostics)).toEqual([]);
    expect(refreshed.state).toMatchObject({ token_id: made!.id });
    const destroyed = await destroy(applied.state!);
    expect(errors(destroyed.diagnostics)).toEqual([]);
    expect((await ofLabel('lost-mixed')).map((t) => t.id)).toEqual([theirs.id]);
  });
});

describe('deleting such a create without a refresh first (destroy, or replacement, with -refresh=false)', () => {
  it('deletes the token it made, found from the id alone: Terraform gives that delete no private bytes', async () => {
    const applied = await createLost({ label: 'lost-destroy' });
    expect(await ofLabel('lost-destroy')).toHaveLength(1);
    const destroyed = await destroy(applied.state!);
    expect(destroyed.diagnostics).toEqual([]);
    expect(destroyed.state).toBeNull();
    expect(await ofLabel('lost-destroy')).toEqual([]);
  });
});

describe('stored states naming no token', () => {
  it('refuses one with neither id nor record, reads nothing, and says how such a state arises and what to do', async () => {
    const orphan = obj(schema, { label: 'lost-orphan', active: true });
    const requests = await p.recordedServer();
    const res = await requests.server.readResource({ typeName: TYPE, currentState: dv(schema, orphan), private: NO_PRIVATE, clientCapabilities: undefined });
    const [error, ...more] = errors(res.diagnostics);
    expect(more).toEqual([]);
    expect(error).toMatchObject({ summary: 'Inconsistent bearer token state' });
    const detail = (error!.detail ?? '').replace(/\s+/g, ' ');
    expect(detail).toMatch(/token_id and id are missing, and no record of a create whose outcome is unknown came with them/);
    expect(detail).toMatch(/delete the token labelled 'lost-orphan' that nothing uses, if there is one/);
    expect(detail).not.toMatch(/edited or is corrupted|import the object again/);
    expect(requests.requests).toEqual([]);
  });

  it.each([
    ['an id naming a token', '42', /token_id is missing, while id "42" names a token/],
    ['a pending id out of order', 'pending:2030-01-01T00:00:09.000Z/2030-01-01T00:00:00.000Z', /is not a pending create's id/],
    ['a pending id that is no time', 'pending:2030-02-31T00:00:00.000Z/2030-03-01T00:00:00.000Z', /is not a pending create's id/],
    ['a pending id in epoch ms', 'pending:1/2', /is not a pending create's id/],
  ])('refuses %s without token_id', async (_name, id, problem) => {
    const res = await read(obj(schema, { id, label: 'lost-edited', active: true }), NO_PRIVATE);
    expect(errors(res.diagnostics)).toEqual([expect.objectContaining({ summary: 'Inconsistent bearer token state', detail: expect.stringMatching(problem) })]);
  });

  it('refuses a pending id beside a token_id', async () => {
    const edited = { ...pendingState('lost-edited', 0, 1000), token_id: 7 };
    const res = await read(edited, NO_PRIVATE);
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Inconsistent bearer token state', detail: expect.stringMatching(/does not match token_id 7/) }),
    ]);
  });
});

describe('a pending create saved by the previous version (no id, tokens known before in private state)', () => {
  it('is gone when no token of its label appeared since, so the plan creates it', async () => {
    const before = (await live()).map((t) => t.id);
    const res = await read(obj(schema, { label: 'legacy-none', active: true }), legacyRecord(before));
    expect(res.diagnostics).toEqual([]);
    expect(res.state).toBeNull();
  });

  it('names a token of its label that appeared since and deletes nothing: nothing says when it was created', async () => {
    const before = (await live()).map((t) => t.id);
    const appeared = await p.admin.tokens.create({ label: 'legacy-one' });
    const state = obj(schema, { label: 'legacy-one', active: true });
    const record = legacyRecord(before);
    const res = await read(state, record);
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to read bearer token',
        detail: expect.stringMatching(
          new RegExp(
            `saved by an earlier version of the provider.*Token ${appeared.id} with this label appeared since it was sent.*Nothing was deleted.*terraform state rm`,
            's',
          ),
        ),
      }),
    ]);
    expect(res.state).toEqual(state);
    expect(res.private).toEqual(record);
    const destroyed = await destroy(state, record);
    expect(errors(destroyed.diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to delete bearer token' })]);
    expect((await ofLabel('legacy-one')).map((t) => t.id)).toEqual([appeared.id]);
  });
});
