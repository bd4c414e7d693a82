// A roster's token expiry as a YAML 1.1 reader (js-yaml) hands it over: a bare date `2030-06-30`
// is a Date at midnight UTC, a timestamp a Date at any instant. The Dates below are the ones js-yaml
// makes of the values named in the comments.
import { AccountRoster, RosterDefinition, l1 } from '../src';
import { synth, thrown, violationLines } from './helpers';

/** A roster with one member and the parent each holding one token that expires at `expiresAt`. */
function rosterExpiring(expiresAt: unknown): RosterDefinition {
  const data = {
    parent: { tokens: [{ label: 'ops', expiresAt }] },
    teams: [{ name: 'data', members: [{ username: 'ada.data', tokens: [{ label: 'ci', expiresAt }] }] }],
  };
  return data as unknown as RosterDefinition;
}

const MEMBER_TOKEN = 'teams[0].members[0].tokens[0].expiresAt';
const PARENT_TOKEN = 'parent.tokens[0].expiresAt';

function refusal(iso: string): string {
  return `must be a calendar date written YYYY-MM-DD (got the timestamp ${iso}, as the YAML reader read it): ` +
    'a time of day may move the date by its time zone; write the date alone';
}

describe('AccountRoster: expiresAt read by a YAML 1.1 reader as a Date', () => {
  test.each([
    // expiresAt: 2030-06-30T23:30:00-05:00 (the file's day, 2030-07-01 in UTC)
    ['a timestamp whose UTC date is the day after', new Date('2030-06-30T23:30:00-05:00'), '2030-07-01T04:30:00.000Z'],
    // expiresAt: 2030-06-30 01:00:00 +05:00 (2030-06-29 in UTC)
    ['a timestamp whose UTC date is the day before', new Date('2030-06-30T01:00:00+05:00'), '2030-06-29T20:00:00.000Z'],
    // expiresAt: 2030-06-30T12:00:00Z (the same day, but a time of day all the same)
    ['a timestamp at noon UTC', new Date('2030-06-30T12:00:00Z'), '2030-06-30T12:00:00.000Z'],
    // a millisecond past midnight
    ['a timestamp just after midnight UTC', new Date('2030-06-30T00:00:00.001Z'), '2030-06-30T00:00:00.001Z'],
  ])('%s is refused at its place, never sent as another day', (_name, date, iso) => {
    const roster = rosterExpiring(date);
    expect(AccountRoster.validate(roster)).toEqual([`${PARENT_TOKEN}: ${refusal(iso)}`, `${MEMBER_TOKEN}: ${refusal(iso)}`]);
    const err = thrown(() => synth((scope) => new AccountRoster(scope, 'Roster', { roster })));
    expect(violationLines(err)).toEqual([`${PARENT_TOKEN}: ${refusal(iso)}`, `${MEMBER_TOKEN}: ${refusal(iso)}`]);
  });

  test('a bare date (a Date at midnight UTC) is the date written', () => {
    // expiresAt: 2030-06-30, and 2030-06-30T00:00:00Z, the same instant
    const roster = rosterExpiring(new Date(Date.UTC(2030, 5, 30)));
    expect(AccountRoster.validate(roster)).toEqual([]);
    const out = synth((scope) => new AccountRoster(scope, 'Roster', { roster }));
    expect(out.raw).toHaveResourceWithProperties(l1.bearerToken.BearerToken, { label: 'ci', expires_at: '2030-06-30' });
    expect(out.raw).toHaveResourceWithProperties(l1.bearerToken.BearerToken, { label: 'ops', expires_at: '2030-06-30' });
  });

  test('a midnight Date past year 9999 is refused as the date it is, not cut to another', () => {
    const date = new Date(Date.UTC(10000, 0, 1));
    expect(AccountRoster.validate(rosterExpiring(date))).toEqual([
      `${PARENT_TOKEN}: must be a calendar date written YYYY-MM-DD (got "+010000-01-01")`,
      `${MEMBER_TOKEN}: must be a calendar date written YYYY-MM-DD (got "+010000-01-01")`,
    ]);
  });

  test('an invalid Date is refused, as before', () => {
    expect(AccountRoster.validate(rosterExpiring(new Date(Number.NaN)))).toEqual([
      `${PARENT_TOKEN}: must be a calendar date written YYYY-MM-DD (got Invalid Date)`,
      `${MEMBER_TOKEN}: must be a calendar date written YYYY-MM-DD (got Invalid Date)`,
    ]);
  });
});
