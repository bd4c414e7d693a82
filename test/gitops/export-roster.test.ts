// `export --format roster` against the roster reader itself (constructs/src/roster-data.ts, whose
// rules src/gitops/roster-rules.ts repeats): whatever the live account holds, the exported file is
// read without a violation, by a YAML 1.2 and a YAML 1.1 parser alike, and every live object is
// either in it or named, with why, among the skipped (stderr and the file's comment). With
// authoritative lists, an entry of a list the roster declares is never left out (the apply would
// delete it): the export stops, naming each one.
import { parse } from 'yaml';
import type { AccountExport, LiveAccount } from '../../src/gitops/export';
import { toRoster } from '../../src/gitops/export-roster';
import type { SubAccount } from '../../src/sdk';
import { token } from './fake-account';

// The constructs package's own reader, loaded at run time: a type import would make the root
// type-check compile the jsii package's sources under the root's compiler options.
const { readRoster } = require('../../constructs/src/roster-data') as { readRoster: (data: unknown) => { violations: readonly string[] } };

const MARKER = ['$', '{TfToken[TOKEN.7]}'].join('');

function member(username: string, lists: Partial<AccountExport> = {}, details: Partial<SubAccount> = {}): AccountExport {
  return {
    username,
    details: { username, active: true, monthlyBandwidth: 0, monthlyBandwidthLimit: 10, totalBandwidth: 0, totalBandwidthLimit: 0, ...details },
    ips: [],
    hostnames: [],
    tokens: [],
    ...lists,
  };
}

/** An account holding what the API accepts and a roster cannot: each offender beside a good twin. */
function live(): LiveAccount {
  return {
    accounts: [
      {
        username: null,
        details: undefined,
        ips: [
          { ip: '198.51.100.9', label: 'vpn' },
          { ip: '198.51.100.10', label: `ci ${MARKER}` },
        ],
        hostnames: ['CI.Example.COM', 'ci.example.com', 'ok.example.com'],
        tokens: [
          token(7, 'tf-ephemeral:leftover'),
          token(8, 'ci'),
          token(9, 'CI'),
          token(10, 'a/b'),
          token(11, 'a--b'),
          token(12, ''),
          token(13, 'yes'),
          token(14, MARKER),
        ],
      },
      member('Mixed.Case', { hostnames: ['a.example.com', 'A.example.com'] }),
      member('mixed.case', { ips: [{ ip: '203.0.113.1', label: '' }], tokens: [token(20, 'deploy')] }),
      member('constructor', { tokens: [token(21, 'x')] }),
      member('toString'),
      member('valueOf'),
      member('alice', { tokens: [token(22, 'tf-ephemeral:sub'), token(23, '2026-01-01')] }, { firstName: 'on', lastName: '0o17' }),
      member('bob', {}, { firstName: 'A name of 21 letters!' }),
    ],
    proxies: ['us-ny.proxy.example.net:8080', 'US-NY.proxy.example.net:8080'],
  };
}

describe('toRoster', () => {
  it('writes a roster the reader accepts whole, in YAML 1.2 and 1.1, whatever the account holds', () => {
    const roster = toRoster(live(), 'per-entry');
    for (const version of ['1.2', '1.1'] as const) {
      const data = parse(roster['roster.yaml'], { version });
      expect(readRoster(data).violations).toEqual([]);
      // Strings stay strings: `yes`, `on`, `0o17` and `2026-01-01` are quoted.
      expect(data.parent.tokens.map((t: { label: unknown }) => t.label)).toEqual(['ci', 'a/b', 'yes']);
      const alice = data.teams[0].members.find((m: { username: string }) => m.username === 'alice');
      expect([alice.firstName, alice.lastName, alice.tokens[0].label]).toEqual(['on', '0o17', '2026-01-01']);
    }
    expect(roster.members).toBe(2);
  });

  it('names every object it leaves out, with why; a member goes with what it holds', () => {
    const roster = toRoster(live(), 'per-entry');
    const marker = 'it holds a CDKTF reference marker (TfToken[…]), which a roster file may not hold';
    const prototype =
      "a username is the member's construct id, and Object.prototype has that name taken; declare this sub-account with a SubAccount of another id";
    expect(roster.skipped).toEqual([
      `IP 198.51.100.10 of the parent account: its label "ci ${MARKER}" cannot be in a roster: ${marker}`,
      'hostname "ci.example.com" of the parent account: the same hostname as "CI.Example.COM", already in the roster (case does not matter); a roster lists it once',
      'proxy "US-NY.proxy.example.net:8080" of the parent account: the same proxy as "us-ny.proxy.example.net:8080", already in the roster ' +
        '(a bare host stands for the full domain it begins, and case does not matter); a roster lists it once',
      'token 7 of the parent account: a leftover of the ephemeral resource; `proxyaccount tokens prune` deletes it',
      `token 9 of the parent account: its label "CI" is the same label (labels compare without case, and a '/' is '--' in the token's construct id) as token 8's "ci", and a roster names tokens by label`,
      `token 11 of the parent account: its label "a--b" is the same label (labels compare without case, and a '/' is '--' in the token's construct id) as token 10's "a/b", and a roster names tokens by label`,
      'token 12 of the parent account: it has no label, and a roster names tokens by label',
      `token 14 of the parent account: its label "${MARKER}" cannot be in a roster: ${marker}`,
      "sub-account 'mixed.case': the same username as sub-account 'Mixed.Case', already in the roster (a roster compares usernames without case); " +
        'its 1 IP, 0 hostnames and 1 token are left out with it',
      `sub-account 'constructor': its username cannot be in a roster: ${prototype}; its 0 IPs, 0 hostnames and 1 token are left out with it`,
      `sub-account 'toString': its username cannot be in a roster: ${prototype}; its 0 IPs, 0 hostnames and 0 tokens are left out with it`,
      `sub-account 'valueOf': its username cannot be in a roster: ${prototype}; its 0 IPs, 0 hostnames and 0 tokens are left out with it`,
      "sub-account 'bob': its first name cannot be in a roster: it is 21 characters long, more than the 20 a roster accepts; its 0 IPs, 0 hostnames and 0 tokens are left out with it",
      'hostname "A.example.com" of sub-account \'Mixed.Case\': the same hostname as "a.example.com", already in the roster (case does not matter); a roster lists it once',
      "token 22 of sub-account 'alice': a leftover of the ephemeral resource; `proxyaccount tokens prune` deletes it",
    ]);
    // The file says the same at the top.
    for (const line of roster.skipped) expect(roster['roster.yaml']).toContain(`# - ${line}\n`);
  });

  it("leaves out, naming why, a member whose limit the reader refuses: above 999999999999999 GB, the provider's maximum", () => {
    const account: LiveAccount = {
      accounts: [member('big', {}, { monthlyBandwidthLimit: 1e15 }), member('max', {}, { totalBandwidthLimit: 999_999_999_999_999 })],
      proxies: [],
    };
    const roster = toRoster(account, 'per-entry');
    expect(roster.skipped).toEqual([
      "sub-account 'big': its monthly limit cannot be in a roster: it is not a whole number of GB from 0 to 999999999999999; " +
        'its 0 IPs, 0 hostnames and 0 tokens are left out with it',
    ]);
    const data = parse(roster['roster.yaml']);
    expect(readRoster(data).violations).toEqual([]);
    expect(data.teams[0].members.map((m: { username: string; totalLimitGb: number }) => [m.username, m.totalLimitGb])).toEqual([['max', 999_999_999_999_999]]);
  });

  it('leaves nothing out silently: each live token and member is in the roster or named', () => {
    const account = live();
    const roster = toRoster(account, 'per-entry');
    const data = parse(roster['roster.yaml']);
    const written = [data.parent, ...data.teams[0].members].flatMap((o: { tokens?: Array<{ importId: number }> }) => (o.tokens ?? []).map((t) => t.importId));
    const members = data.teams[0].members.map((m: { username: string }) => m.username);
    for (const a of account.accounts) {
      const owner = a.username === null ? 'the parent account' : `sub-account '${a.username}'`;
      if (a.username !== null && !members.includes(a.username)) {
        expect(roster.skipped.some((l) => l.startsWith(`${owner}: `))).toBe(true);
        continue;
      }
      for (const t of a.tokens) expect(written.includes(t.id) || roster.skipped.some((l) => l.startsWith(`token ${t.id} of ${owner}: `))).toBe(true);
    }
  });

  it('with authoritative lists, stops on every entry of a declared list it would leave out, naming each and what to do', () => {
    const marker = 'it holds a CDKTF reference marker (TfToken[…]), which a roster file may not hold';
    let message = '';
    try {
      toRoster(live(), 'authoritative');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      [
        '--lists authoritative cannot write this roster: an authoritative list removes from the account every entry it does not hold, ' +
          'and these entries of its lists cannot be in a roster:',
        ` - IP 198.51.100.10 of the parent account: its label "ci ${MARKER}" cannot be in a roster: ${marker}`,
        ' - hostname "ci.example.com" of the parent account: the same hostname as "CI.Example.COM", already in the roster (case does not matter); a roster lists it once',
        ' - proxy "US-NY.proxy.example.net:8080" of the parent account: the same proxy as "us-ny.proxy.example.net:8080", already in the roster ' +
          '(a bare host stands for the full domain it begins, and case does not matter); a roster lists it once',
        ' - hostname "A.example.com" of sub-account \'Mixed.Case\': the same hostname as "a.example.com", already in the roster (case does not matter); a roster lists it once',
        'Export with --lists per-entry (the roster is then additive: an entry left out stays on the account as it is), ' +
          'or change the account so that each can be written (remove one of two spellings, change a label the roster refuses) and export again',
      ].join('\n'),
    );
  });

  it("with authoritative lists, stops on an account's 101st IP, which its list would delete", () => {
    const ips = Array.from({ length: 101 }, (_, i) => ({ ip: `10.0.${i >> 8}.${i & 255}`, label: '' }));
    expect(() => toRoster({ accounts: [member('alice', { ips })], proxies: [] }, 'authoritative')).toThrow(
      "\n - IP 10.0.0.100 of sub-account 'alice': a roster holds at most 100 IPs per account\n",
    );
    // Additive, the 101st stays on the account untouched: named, and the rest written.
    const roster = toRoster({ accounts: [{ ...member('x'), username: null, details: undefined, ips }], proxies: [] }, 'per-entry');
    expect(roster.skipped).toEqual(['IP 10.0.0.100 of the parent account: a roster holds at most 100 IPs per account']);
  });

  it('with authoritative lists, leaves out and names what no declared list holds: tokens, a member with its lists, proxies when none is written', () => {
    const account: LiveAccount = {
      accounts: [
        {
          username: null,
          details: undefined,
          ips: [{ ip: '198.51.100.9', label: 'vpn' }],
          hostnames: ['ok.example.com'],
          tokens: [token(7, 'tf-ephemeral:x'), token(8, '')],
        },
        // Left out whole: it declares no list, so its case-twin hostnames and marker-labelled IP are not deleted.
        member('constructor', { ips: [{ ip: '203.0.113.1', label: MARKER }], hostnames: ['b.example.com', 'B.example.com'] }),
        member('alice', { hostnames: ['a.example.com'] }),
      ],
      // No proxy can be written: the parent declares no proxies list, which would empty the account's.
      proxies: ['not a proxy', `${MARKER}.example.com`],
    };
    const roster = toRoster(account, 'authoritative');
    const prototype =
      "a username is the member's construct id, and Object.prototype has that name taken; declare this sub-account with a SubAccount of another id";
    expect(roster.skipped).toEqual([
      'proxy "not a proxy" of the parent account: it is not a proxy a roster accepts (a host, a full domain or domain:port)',
      `proxy "${MARKER}.example.com" of the parent account: it is not a proxy a roster accepts (a host, a full domain or domain:port)`,
      'token 7 of the parent account: a leftover of the ephemeral resource; `proxyaccount tokens prune` deletes it',
      'token 8 of the parent account: it has no label, and a roster names tokens by label',
      `sub-account 'constructor': its username cannot be in a roster: ${prototype}; its 1 IP, 2 hostnames and 0 tokens are left out with it`,
    ]);
    const data = parse(roster['roster.yaml']);
    expect(readRoster(data).violations).toEqual([]);
    expect(data.accessList).toBe('authoritative');
    expect(data.parent).toEqual({ importExisting: true, ips: [{ ip: '198.51.100.9', label: 'vpn' }], hostnames: ['ok.example.com'] });
    expect(data.teams[0].members.map((m: { username: string }) => m.username)).toEqual(['alice']);
    expect(roster['roster.yaml']).toContain(
      '# Left out, each with why; nothing in this file manages or removes them, so they stay on the account as they are:\n',
    );
  });

  it('with authoritative lists, an account with no proxy gets `proxies: []`, so the roster owns the list and a proxy added elsewhere shows', () => {
    const account: LiveAccount = {
      accounts: [{ username: null, details: undefined, ips: [{ ip: '198.51.100.9', label: 'vpn' }], hostnames: [], tokens: [] }],
      proxies: [],
    };
    const data = parse(toRoster(account, 'authoritative')['roster.yaml']);
    expect(data.parent).toEqual({ importExisting: true, ips: [{ ip: '198.51.100.9', label: 'vpn' }], proxies: [] });
    expect(readRoster(data).violations).toEqual([]);
    // Per entry, nothing owns a list: no key is written for none.
    expect(parse(toRoster(account, 'per-entry')['roster.yaml']).parent).toEqual({ importExisting: true, ips: [{ ip: '198.51.100.9', label: 'vpn' }] });
  });

  it('leaves out, naming why, hostnames the reader takes for IP addresses: a numeric last label, in decimal or 0x hex', () => {
    // An API that read them as names may hold them; each resolves to an IP without asking DNS.
    const held = ['0x7f000001', 'ci.0x1f', '127.0.0.0x1', '0x7f.example.com', 'a0x1.example.com'];
    const account: LiveAccount = { accounts: [{ username: null, details: undefined, ips: [], hostnames: held, tokens: [] }], proxies: [] };
    const roster = toRoster(account, 'per-entry');
    const why =
      'it is not a hostname a roster accepts (letters, digits and inner hyphens, no wildcard, not an IP address: a numeric last label such as 7 or 0x1f makes one)';
    expect(roster.skipped).toEqual(['0x7f000001', 'ci.0x1f', '127.0.0.0x1'].map((h) => `hostname "${h}" of the parent account: ${why}`));
    const data = parse(roster['roster.yaml']);
    expect(data.parent.hostnames).toEqual(['0x7f.example.com', 'a0x1.example.com']);
    expect(readRoster(data).violations).toEqual([]);
  });

  it('escapes the characters YAML 1.1 takes for line breaks, so every reader reads the label back as it is', () => {
    const labels = ['nel\u0085here', 'ls\u2028here', 'ps\u2029here', 'all\u0085\u2028\u2029', 'slash\\\u0085'];
    const account: LiveAccount = {
      accounts: [{ username: null, details: undefined, ips: labels.map((label, i) => ({ ip: `198.51.100.${i + 1}`, label })), hostnames: [], tokens: [] }],
      proxies: [],
    };
    const text = toRoster(account, 'authoritative')['roster.yaml'];
    // Raw, a YAML 1.1 reader (PyYAML) folds them into a space or a line break.
    expect(text).not.toMatch(/[\u0085\u2028\u2029]/);
    expect(text).toContain('label: "nel\\Nhere"');
    expect(text).toContain('label: "ls\\Lhere"');
    expect(text).toContain('label: "ps\\Phere"');
    for (const version of ['1.2', '1.1'] as const) {
      const data = parse(text, { version });
      expect(data.parent.ips.map((e: { label: string }) => e.label)).toEqual(labels);
      expect(readRoster(data).violations).toEqual([]);
    }
  });
});
