// Runs every copy of the syntax rules over the shared table (cases.ts): the SDK's validators,
// the emulator's, the provider's (resource schemas and the shared helpers), the constructs' and
// the roster rules `export --format roster` repeats from the constructs' reader.
// Copies that disagree and belong to someone else are listed in KNOWN_DISAGREEMENTS; the test
// checks those cases still disagree, so an entry must be removed once its copy is fixed.
import {
  checkHostname as constructsHostname,
  checkIpv4 as constructsIpv4,
  checkText as constructsText,
  checkUsername as constructsUsername,
  Violations,
} from '../../constructs/src/validation';
import {
  checkHostname as emulatorHostname,
  checkIpv4 as emulatorIpv4,
  checkMaxLength as emulatorMaxLength,
  checkUsername as emulatorUsername,
  MAX_IP_LABEL as EMULATOR_MAX_IP_LABEL,
  MAX_TOKEN_LABEL as EMULATOR_MAX_TOKEN_LABEL,
} from '../../src/emulator/validation';
import { hostnameProblem, ipProblem, MAX_LABEL as ROSTER_MAX_LABEL, textProblem, usernameProblem } from '../../src/gitops/roster-rules';
import { isHostname as providerIsHostname } from '../../src/provider/access/list-syntax';
import { isUsername as providerIsUsername } from '../../src/provider/access/usernames';
import type { Validator } from '../../src/provider/framework';
import { authorizedHostnameResource } from '../../src/provider/resources/authorized-hostname';
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { checkDomain, checkIpLabel, checkIpv4, checkTokenLabel, checkUsername } from '../../src/sdk/validation';
import { RULES, type RuleName } from './cases';

/** A copy of a rule: true when it accepts the value. */
type Check = (value: string) => boolean;

/** True when `fn` returns, false when it throws (any error: each copy has its own error type). */
const accepts =
  (fn: (value: string) => unknown): Check =>
  (value) => {
    try {
      fn(value);
      return true;
    } catch {
      return false;
    }
  };

/** A constructs check: accepted when it records no violation. */
const constructs =
  (fn: (v: Violations, value: string) => void): Check =>
  (value) => {
    const v = new Violations();
    fn(v, value);
    return v.list.length === 0;
  };

/** A roster rule: accepted when it names no problem. */
const roster =
  (problem: (value: string) => string | undefined): Check =>
  (value) =>
    problem(value) === undefined;

/** A provider attribute's validators: accepted when none reports a diagnostic. */
const provider =
  (validators: ReadonlyArray<Validator<string>>): Check =>
  (value) =>
    validators.every((val) => val.validate(value, { path: [{ attributeName: 'x' }], attributeName: 'x', sensitive: false, siblings: {} }).length === 0);

/** Every copy of every rule, keyed by implementation. */
const IMPLEMENTATIONS: Readonly<Record<string, Partial<Record<RuleName, Check>>>> = {
  sdk: {
    username: accepts(checkUsername),
    hostname: accepts(checkDomain),
    ipLabel: accepts(checkIpLabel),
    tokenLabel: accepts(checkTokenLabel),
    ipv4: accepts(checkIpv4),
  },
  emulator: {
    username: accepts(emulatorUsername),
    hostname: accepts(emulatorHostname),
    ipLabel: accepts((v) => emulatorMaxLength(v, 'label', EMULATOR_MAX_IP_LABEL)),
    tokenLabel: accepts((v) => emulatorMaxLength(v, 'label', EMULATOR_MAX_TOKEN_LABEL)),
    ipv4: accepts(emulatorIpv4),
  },
  'provider (access helpers)': {
    username: providerIsUsername,
    hostname: providerIsHostname,
  },
  'provider (resource schemas)': {
    username: provider(subAccountResource.schema.attributes.username.validators),
    hostname: provider(authorizedHostnameResource.schema.attributes.domain.validators),
    ipLabel: provider(authorizedIpResource.schema.attributes.label.validators),
    tokenLabel: provider(bearerTokenResource.schema.attributes.label.validators),
    ipv4: provider(authorizedIpResource.schema.attributes.ip.validators),
  },
  constructs: {
    username: constructs((v, value) => constructsUsername(v, 'username', value)),
    hostname: constructs((v, value) => constructsHostname(v, 'hostname', value)),
    ipLabel: constructs((v, value) => constructsText(v, 'label', value, 100)),
    tokenLabel: constructs((v, value) => constructsText(v, 'label', value, 100)),
    ipv4: constructs((v, value) => constructsIpv4(v, 'ip', value)),
  },
  'gitops (roster rules)': {
    username: roster(usernameProblem),
    hostname: roster(hostnameProblem),
    ipLabel: roster((value) => textProblem(value, ROSTER_MAX_LABEL)),
    tokenLabel: roster((value) => textProblem(value, ROSTER_MAX_LABEL)),
    ipv4: roster(ipProblem),
  },
};

/**
 * Cases where a copy that is not the SDK's disagrees with the table today, by implementation and
 * rule (case names from cases.ts). Their owners fix them at merge time; then the entry goes.
 */
const _UNSAFE_CHARACTER_CASES = [
  'NUL',
  'LF',
  'CR',
  'CRLF',
  'TAB',
  'ESC',
  'DEL',
  'bidi embedding U+202A',
  'bidi override U+202E',
  'bidi isolate U+2066',
  'bidi pop isolate U+2069',
] as const;
const KNOWN_DISAGREEMENTS: Readonly<Record<string, Partial<Record<RuleName, readonly string[]>>>> = {};

/** Cases each implementation gets wrong that are not listed above, as readable lines. */
function unexpectedDisagreements(): string[] {
  const out: string[] = [];
  for (const [impl, rules] of Object.entries(IMPLEMENTATIONS)) {
    for (const [rule, check] of Object.entries(rules) as [RuleName, Check][]) {
      const known = new Set(KNOWN_DISAGREEMENTS[impl]?.[rule] ?? []);
      for (const kase of RULES[rule]) {
        const got = check(kase.value);
        if (got !== kase.valid && !known.has(kase.name))
          out.push(`${impl} / ${rule} / ${kase.name}: ${got ? 'accepts' : 'refuses'} ${JSON.stringify(kase.value).slice(0, 60)}`);
      }
    }
  }
  return out;
}

describe('the shared rules table', () => {
  it('has unique case names and both verdicts in every rule', () => {
    for (const [rule, cases] of Object.entries(RULES)) {
      expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
      expect(cases.some((c) => c.valid)).toBe(true);
      expect(cases.some((c) => !c.valid)).toBe(true);
      expect(rule).toBeTruthy();
    }
  });

  it('every copy of every rule agrees with it (apart from the listed disagreements)', () => {
    expect(unexpectedDisagreements()).toEqual([]);
  });

  it('each listed disagreement still exists (remove it once its copy is fixed)', () => {
    const stale: string[] = [];
    for (const [impl, rules] of Object.entries(KNOWN_DISAGREEMENTS)) {
      for (const [rule, names] of Object.entries(rules) as [RuleName, readonly string[]][]) {
        const check = IMPLEMENTATIONS[impl]?.[rule];
        for (const name of names) {
          const kase = RULES[rule].find((c) => c.name === name);
          if (check === undefined || kase === undefined || check(kase.value) === kase.valid) stale.push(`${impl} / ${rule} / ${name}`);
        }
      }
    }
    expect(stale).toEqual([]);
  });

  it('the SDK has no disagreement at all', () => {
    expect(KNOWN_DISAGREEMENTS.sdk).toBeUndefined();
  });
});
