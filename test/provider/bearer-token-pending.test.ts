// proxyaccount_bearer_token when a create's answer is lost and reading the account back fails too,
// against a real emulator, driven as Terraform drives it (the private bytes included): the create
// returns a state with its error, which Terraform saves tainted, holding no token id and a record
// of the tokens that were there before; the next refresh finds what the create made (none: gone,
// one: adopted, so the tainted replacement deletes it, several: an error, nothing deleted).
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
  await p.emu.control.fault({ path: '/api/tokens/', method: 'GET', delayMs: 0, count: 1 });
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

describe('a create whose answer and read-back are lost', () => {
  it('returns the planned object with the error (Terraform saves it tainted), no token id, and the tokens known before', async () => {
    const before = (await live()).map((t) => t.id);
    const applied = await createLost({ label: 'lost-one' });
    const [error, ...more] = errors(applied.diagnostics);
    expect(more).toEqual([]);
    expect(error).toMatchObject({ summary: 'Unable to create bearer token' });
    // What really happens next, for a token: not the refresh promise other writes make.
    expect(error!.detail).toMatch(/A token labelled 'lost-one' may now exist whose value nobody received/);
    expect(error!.detail).toMatch(/The next plan reads the account's tokens and replaces what this create may have made/);
    expect(error!.detail).not.toMatch(/shows what exists/);
    expect(applied.state).toEqual(obj(schema, { label: 'lost-one', active: true }));
    expect(privateJson(applied.private)).toEqual({ create_pending: { tokens_known_before: before } });
    // The token was made; nothing in the state names it yet.
    expect((await live()).filter((t) => t.label === 'lost-one')).toHaveLength(1);
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
    expect((await live()).filter((t) => t.label === 'lost-serial')).toHaveLength(1);
    // Another label is not held up.
    const other = await apply(server, null, await planCreate(server, { label: 'lost-other' }), { label: 'lost-other' });
    expect(errors(other.diagnostics)).toEqual([]);
  });
});

describe('the next refresh of such a create', () => {
  it('adopts the one token it made (no value), clears the record; the tainted replacement deletes it and leaves one token', async () => {
    const applied = await createLost({ label: 'lost-adopt', username: 'pend-sub' });
    const made = (await live('pend-sub')).find((t) => t.label === 'lost-adopt')!;
    const refreshed = await read(applied.state!, applied.private);
    expect(errors(refreshed.diagnostics)).toEqual([]);
    expect(refreshed.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        detail: expect.stringMatching(
          new RegExp(`bearer token ${made.id} 'lost-adopt' of sub-account 'pend-sub' was made by a create whose answer was lost`, 'i'),
        ),
      }),
    ]);
    expect(refreshed.state).toMatchObject({ id: `pend-sub/${made.id}`, token_id: made.id, label: 'lost-adopt', username: 'pend-sub', token: null });
    expect(refreshed.private).toEqual(new Uint8Array());

    // Terraform replaces a tainted object: a create plan, then the delete of the old object (its
    // plan carried no private bytes), then the create.
    const server = await p.newServer();
    const planned = await planCreate(server, { label: 'lost-adopt', username: 'pend-sub' });
    const deleted = await apply(server, refreshed.state, null, null);
    expect(deleted.diagnostics).toEqual([]);
    const created = await apply(server, null, planned, { label: 'lost-adopt', username: 'pend-sub' });
    expect(errors(created.diagnostics)).toEqual([]);
    const tokens = (await live('pend-sub')).filter((t) => t.label === 'lost-adopt');
    expect(tokens.map((t) => t.id)).toEqual([created.state!['token_id']]);
    expect(created.state!['token']).toMatch(/^\S+$/);
  });

  it('removes it from state when the create made nothing, so the plan creates it again', async () => {
    const applied = await createLost({ label: 'lost-none' }, false);
    expect(errors(applied.diagnostics)).toHaveLength(1);
    expect(applied.state).toEqual(obj(schema, { label: 'lost-none', active: true }));
    expect((await live()).filter((t) => t.label === 'lost-none')).toEqual([]);
    const refreshed = await read(applied.state!, applied.private);
    expect(refreshed.diagnostics).toEqual([]);
    expect(refreshed.state).toBeNull();
  });

  it('names every candidate and deletes none when several tokens of the label appeared since', async () => {
    const applied = await createLost({ label: 'lost-many' });
    await p.admin.tokens.create({ label: 'lost-many' });
    const candidates = (await live()).filter((t) => t.label === 'lost-many').map((t) => t.id);
    expect(candidates).toHaveLength(2);
    const refreshed = await read(applied.state!, applied.private);
    expect(errors(refreshed.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to read bearer token',
        detail: expect.stringMatching(new RegExp(`tokens ${candidates.join(', ')} with this label appeared.*Nothing was deleted.*terraform state rm`, 's')),
      }),
    ]);
    // The state stays as it was, record included, so the next plan asks again.
    expect(refreshed.state).toEqual(applied.state);
    expect(refreshed.private).toEqual(applied.private);
    expect((await live()).filter((t) => t.label === 'lost-many').map((t) => t.id)).toEqual(candidates);
  });

  it('is refused as inconsistent without the record, and reads nothing', async () => {
    const pending = obj(schema, { label: 'lost-none', active: true });
    const requests = await p.recordedServer();
    const res = await requests.server.readResource({ typeName: TYPE, currentState: dv(schema, pending), private: NO_PRIVATE, clientCapabilities: undefined });
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Inconsistent bearer token state', detail: expect.stringMatching(/token_id and id are missing/) }),
    ]);
    expect(requests.requests).toEqual([]);
  });

  it('still refuses an id without token_id, record or not', async () => {
    const { private: record } = await createLost({ label: 'lost-edited' });
    const edited = obj(schema, { id: '42', label: 'lost-edited', active: true });
    const res = await read(edited, record);
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Inconsistent bearer token state',
        detail: expect.stringMatching(/token_id is missing, while id "42" names a token/),
      }),
    ]);
  });
});

describe('destroying such a create without a refresh first (terraform destroy -refresh=false)', () => {
  it('deletes the token it made, found by the record its destroy plan carries', async () => {
    const applied = await createLost({ label: 'lost-destroy' });
    expect((await live()).filter((t) => t.label === 'lost-destroy')).toHaveLength(1);
    const server = await p.newServer();
    const destroyed = await apply(server, applied.state, null, null, applied.private);
    expect(destroyed.diagnostics).toEqual([]);
    expect(destroyed.state).toBeNull();
    expect((await live()).filter((t) => t.label === 'lost-destroy')).toEqual([]);
  });
});
