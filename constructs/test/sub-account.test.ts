import { Fn, Lazy, Op, TerraformStack, TerraformVariable, Testing, Token } from 'cdktf';
import { AccessListMode, AccountRoster, ParentAccess, SubAccount, SubAccountProps, TokenOptions, l1 } from '../src';
import { FLAVOR } from './flavor';
import { AROUND_REFERENCE, aroundReference, bodies, synth, templateLiteral, templateValue, thrown, violationLines } from './helpers';

describe('SubAccount', () => {
  test('creates its proxyaccount_sub_account as the child "Resource" with the props mapped', () => {
    let sub: SubAccount | undefined;
    const out = synth((scope) => {
      sub = new SubAccount(scope, 'Alice', {
        username: 'alice.data',
        firstName: 'Alice',
        email: 'alice@example.com',
        monthlyLimitGb: 50,
        totalLimitGb: 500,
        active: false,
      });
    });
    expect(sub?.node.defaultChild).toBe(sub?.resource);
    expect(sub?.resource.node.id).toBe('Resource');
    expect(out.raw).toHaveResourceWithProperties(l1.subAccount.SubAccount, {
      username: 'alice.data',
      first_name: 'Alice',
      email: 'alice@example.com',
      monthly_limit: 50,
      total_limit: 500,
      active: false,
    });
  });

  test('leaves unset props out, so the provider defaults apply', () => {
    const out = synth((scope) => new SubAccount(scope, 'Bob', { username: 'bob' }));
    expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{ username: 'bob' }]);
  });

  test('a password goes to password, or write-only to password_wo when passwordVersion is set', () => {
    const out = synth((scope) => {
      new SubAccount(scope, 'A', { username: 'a', password: 'stored-secret' });
      new SubAccount(scope, 'B', { username: 'b', password: 'wo-secret', passwordVersion: 2 });
    });
    const [a, b] = bodies(out, 'proxyaccount_sub_account');
    expect(a).toEqual({ username: 'a', password: 'stored-secret' });
    expect(b).toEqual({ username: 'b', password_wo: 'wo-secret', password_wo_version: 2 });
  });

  describe('a password is literal text, never a Terraform template', () => {
    // Terraform reads every string of the JSON as a template: unescaped, `S3cr%{et` fails the
    // plan with the password in Terraform's error, and `Pa$${ss` reaches the account as `Pa${ss`.
    const PASSWORDS = ['S3cr%{et-Pass', 'Pa${ss}-word1', 'Pa$${ss-word1', 'x%%{ if true }y', '$$$${%%%{}', '${', '%{'];

    test("the synthesized JSON decodes, by Terraform's template rules, to the exact password, stored or write-only", () => {
      const out = synth((scope) => PASSWORDS.forEach((password, i) => {
        new SubAccount(scope, `S${i}`, { username: `s${i}`, password });
        new SubAccount(scope, `W${i}`, { username: `w${i}`, password, passwordVersion: 1 });
      }));
      const body = (username: string): Record<string, unknown> | undefined => bodies(out, 'proxyaccount_sub_account').find((b) => b.username === username);
      PASSWORDS.forEach((password, i) => {
        expect(templateLiteral(body(`s${i}`)?.password as string)).toBe(password);
        expect(templateLiteral(body(`w${i}`)?.password_wo as string)).toBe(password);
      });
    });

    test('a reference stays a reference, and the text around it is literal', () => {
      const out = synth((scope) => {
        const secret = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true }).stringValue;
        new SubAccount(scope, 'A', { username: 'a', password: secret });
        new SubAccount(scope, 'B', { username: 'b', password: `%{x}${secret}` });
      });
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([
        { username: 'a', password: '${var.secret}' },
        { username: 'b', password: '%%{x}${var.secret}' },
      ]);
    });

    test('a `$` or `%` just before a reference stays text, and the reference is still evaluated, stored or write-only', () => {
      // `'Pre$' + secret` was written `Pre$${var.secret}`, which Terraform reads as its escape: the
      // account got the guessable text `Pre${var.secret}`, and the secret was never used.
      const values = { 'var.secret': 'Secret-123', 'var.pin': '4711' };
      const out = synth((scope) => {
        const secret = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true }).stringValue;
        const pin = new TerraformVariable(scope, 'pin', { type: 'number', sensitive: true }).numberValue;
        AROUND_REFERENCE.forEach((pattern, i) => {
          new SubAccount(scope, `S${i}`, { username: `s${i}`, password: aroundReference(pattern, secret) });
          new SubAccount(scope, `W${i}`, { username: `w${i}`, password: aroundReference(pattern, secret), passwordVersion: 1 });
        });
        new SubAccount(scope, 'Pin', { username: 'pin', password: `pin$${pin}$` });
      });
      const body = (username: string): Record<string, unknown> | undefined => bodies(out, 'proxyaccount_sub_account').find((b) => b.username === username);
      AROUND_REFERENCE.forEach((pattern, i) => {
        const expected = aroundReference(pattern, 'Secret-123');
        expect({ pattern, value: templateValue(body(`s${i}`)?.password as string, values) }).toEqual({ pattern, value: expected });
        expect({ pattern, value: templateValue(body(`w${i}`)?.password_wo as string, values) }).toEqual({ pattern, value: expected });
      });
      // A number token written into the text is a reference too.
      expect(templateValue(body('pin')?.password as string, values)).toBe('pin$4711$');
    });

    test('its length is counted as given (a `$${` is three characters), and it is never shown', () => {
      const at128 = `$\${${'p'.repeat(125)}`;
      const at129 = `%%{${'q'.repeat(126)}`;
      synth((scope) => new SubAccount(scope, 'A', { username: 'a', password: at128 }));
      const err = thrown(() => Testing.synthScope((scope) => new SubAccount(scope, 'B', { username: 'b', password: at129 })));
      expect(violationLines(err)).toEqual(['password: must be at most 128 characters (got 129)']);
      expect(err.message).not.toContain('qqqq');
    });
  });

  describe('a password holding an expression (an Fn.* call, say) is checked at synth, its text never shown', () => {
    // cdktf writes the text inside an expression as quoted strings, escaping only `${` and line
    // breaks: `Fn.join('', ['Pa%%{', secret])` reached the account as `Pa%{...`, a backslash began an
    // escape sequence, and `%{` or `"` failed the plan, which printed the text. Each literal part
    // holds `Zq7`, which no error may show.
    type Build = (secret: string, pin: number, passwords: Record<string, string>) => string;
    const QUOTED = /^password: a Terraform expression in it \(the arguments of an Fn\.\* call, say\) holds text with a backslash, a double quote, a line break or %\{, .* the plan would fail and print the text; write literal text outside expressions and references, joined to them with plain \+/;
    const NUMBER = /^password: a Terraform expression in it holds a number reference inside text, which cdktf writes there as the reference's bare name \(or as placeholder digits\)/;
    const NOT_AN_EXPRESSION = /^password: a Terraform expression in it \(the arguments of an Fn\.\* call, say\) holds a token that is no expression \(a Lazy value or Token\.asAny, say\) and gives a value of its own, which cdktf writes there as Terraform source, not as text/;
    const JOINED = /^password: a reference in it \(a Lazy value, say\) gives text that ends with \$ or % where the text after it starts with \{, or ends with \$ just before a reference: written together they make \$\{, %\{ or \$\$\{/;
    const MISSING = /^password: a Terraform expression in it holds undefined or null \(an optional setting left out, say\) as an item of a list, .* drops the last, so the account would get another password, or the plan would fail and print the text; leave the item out of the list in code/;
    const lazy = (text: string) => Lazy.stringValue({ produce: () => text });
    // An optional setting left out: cdktf wrote the items after it a place early, dropping the last
    // (`Fn.concat([[prefix, secret], ['Zq7']])` planned as `Zq7`, the secret gone).
    const unset: { prefix?: string } = {};
    const REFUSED: Record<string, [Build, RegExp]> = {
      'an escape of %{': [(s) => Fn.join('', ['Zq7%%{', s]), QUOTED],
      'a %{': [(s) => Fn.join('', ['Zq7%{', s]), QUOTED],
      'a backslash escape': [(s) => Fn.join('', ['Zq7\\u0041', s]), QUOTED],
      'a lone backslash': [(s) => Fn.join('', ['Zq7\\', s]), QUOTED],
      'a double quote': [(s) => Fn.join('', ['Zq7"', s]), QUOTED],
      'text in double quotes': [(s) => Fn.join('', ['"Zq7"', s]), QUOTED],
      'a line break': [(s) => Fn.join('', ['Zq7\n', s]), QUOTED],
      'text joined to a reference inside the call': [(s) => Fn.lower(`Zq7%{${s}`), QUOTED],
      'a branch of a condition': [(s) => Fn.conditional(true, 'Zq7"', s), QUOTED],
      'a map key': [(s) => Fn.lookup({ 'Zq7"': 'v' }, s, 'x'), QUOTED],
      'a raw string': [(s) => Fn.join('', [Fn.rawString('Zq7\\'), s]), QUOTED],
      'an expression after literal text': [(s) => `Pre-${Fn.join('', ['Zq7%{', s])}`, QUOTED],
      'an expression as a number written into the text': [(s) => `x${Fn.lengthOf(['Zq7%{', s])}`, QUOTED],
      'a $ before a reference inside the call': [(s) => Fn.join('', [`Zq7$${s}`]), /^password: a Terraform expression in it holds text with a \$ just before a reference, which cdktf writes as \$\$\{/],
      'a number reference inside text in the call': [(_s, pin) => Fn.join('', [`Zq7:${pin}`]), NUMBER],
      'a number reference after a digit in the call': [(_s, pin) => Fn.join('', [`Zq7${pin}`]), NUMBER],
      'a Lazy value giving %{': [() => Lazy.stringValue({ produce: () => 'Zq7%{' }), /^password: a reference in it \(a Lazy value, say\) gives text holding %\{, %%\{ or \$\$\{/],
      // cdktf quotes a plain string of a list or variadic argument itself (`Fn.coalesce([s, 'x'])`
      // stores `"x"`): the text inside its quotes is still written as it is.
      'quoted text in an argument cdktf quotes itself': [(s) => Fn.coalesce([s, '"Zq7"']), QUOTED],
      'a backslash in an argument cdktf quotes itself': [(s) => Fn.coalesce([s, 'Zq7\\t']), QUOTED],
      'a %{ in a lookup fallback': [(_s, _pin, pws) => Fn.lookup(pws, 'alice', 'Zq7%{'), QUOTED],
      'a double quote in a format argument': [(s) => Fn.format('%s-%s', [s, 'Zq7"']), QUOTED],
      'quoted text in a list item cdktf quotes itself': [(s) => Fn.join('', Fn.sort(['"Zq7"', s])), QUOTED],
      // Elsewhere cdktf writes a string in double quotes without quotes of its own: `["Zq7"]`.
      'quoted text in a list cdktf does not quote': [(s) => Fn.join('', Fn.tolist(['"Zq7"', s])), QUOTED],
      'quoted text in an argument of any type': [() => Fn.jsonencode('"Zq7"'), QUOTED],
      // Within an expression cdktf writes a Lazy value's text as Terraform source: `0123` became 123.
      'a Lazy value inside a call': [(s) => Fn.join('', [lazy('0123Zq7'), s]), NOT_AN_EXPRESSION],
      'a Token.asAny value inside a call': [(s) => Fn.join('', [Token.asString(Token.asAny('007Zq7')), s]), NOT_AN_EXPRESSION],
      'a Lazy value joined to text inside a call': [(s) => Fn.join('', [`Zq7${lazy('x')}`, s]), NOT_AN_EXPRESSION],
      'a Lazy value giving text and a reference inside a call': [(s) => Fn.join('', [lazy(`Zq7${s}`)]), NOT_AN_EXPRESSION],
      'a number from Token.asAny inside a call': [(s) => Fn.join('', [Token.asString(Token.asAny(7)), 'Zq7', s]), NOT_AN_EXPRESSION],
      // Text a Lazy value gives in place, next to other text, makes a template sequence across the join.
      'a Lazy value ending in $ before {': [(s) => `${lazy('Zq7$')}{x}${s}`, JOINED],
      'a Lazy value ending in $$ before {': [(s) => `${lazy('Zq7$$')}{x}${s}`, JOINED],
      'a Lazy value ending in $ before text naming a reference': [() => `${lazy('Zq7$')}{var.secret}`, JOINED],
      'a Lazy value ending in % before {': [(s) => `${lazy('Zq7%')}{x}${s}`, JOINED],
      'a % before a Lazy value starting with {': [(s) => `Zq7%${lazy('{x}')}${s}`, JOINED],
      'two Lazy values making %{': [(s) => `${lazy('Zq7%')}${lazy('{x}')}${s}`, JOINED],
      'two Lazy values making ${': [(s) => `${lazy('Zq7$')}${lazy('{x}')}${s}`, JOINED],
      'a Lazy value ending in $ before a reference': [(s) => `${lazy('Zq7$')}${s}`, JOINED],
      'an empty Lazy value between % and {': [(s) => `Zq7%${lazy('')}{x}${s}`, JOINED],
      'an undefined item in a list of Fn.concat': [(s) => Fn.join('-', Fn.concat([[unset.prefix, s], ['Zq7']])), MISSING],
      'an undefined item in the list of Fn.join': [(s) => Fn.join('-', [s, unset.prefix, 'Zq7'] as string[]), MISSING],
      'an undefined item in the list of Fn.tolist': [(s) => Fn.join('-', Fn.tolist([s, unset.prefix, 'Zq7'])), MISSING],
      'an undefined item in the list of Fn.element': [(s) => Fn.element([unset.prefix, s, 'Zq7'], 2), MISSING],
      'an undefined item in a nested list': [(s) => Fn.join('-', Fn.flatten([['Zq7', [unset.prefix, s]]])), MISSING],
      'an undefined item in a list that is a map value': [(s) => Fn.join('-', Fn.flatten(Fn.values({ a: [unset.prefix, s, 'Zq7'] }))), MISSING],
      'a null item in a list': [(s) => Fn.join('-', ['Zq7', null, s] as string[]), MISSING],
      'a hole in a sparse list': [(s) => Fn.join('-', ['Zq7', , s] as string[]), MISSING],
      'an undefined argument of a call': [(s) => Fn.join('-', Fn.concat([Fn.tolist(unset.prefix), ['Zq7', s]])), MISSING],
      'an undefined branch of a condition': [(s) => Fn.conditional(Op.eq(s, 'x'), 'Zq7', unset.prefix), MISSING],
    };

    test.each(Object.entries(REFUSED))('refused, stored or write-only: %s', (_name, [build, reason]) => {
      for (const passwordVersion of [undefined, 1]) {
        const stack = new TerraformStack(Testing.app(), 'stack');
        const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true }).stringValue;
        const pin = new TerraformVariable(stack, 'pin', { type: 'number', sensitive: true }).numberValue;
        const pws = new TerraformVariable(stack, 'pws', { type: 'map(string)', sensitive: true }).value as Record<string, string>;
        new SubAccount(stack, 'A', { username: 'a', password: build(secret, pin, pws), passwordVersion });
        const err = thrown(() => Testing.synth(stack));
        expect(err.message).toContain("SubAccount 'stack/A' is invalid (1 problem):\n");
        expect(violationLines(err)).toEqual([expect.stringMatching(reason)]);
        expect(err.message).not.toContain('Zq7');
      }
    });

    test('a number reference the synth would not find (after a digit, say) is refused at once: the account would get its placeholder digits', () => {
      // cdktf reads the longest run of a number's characters: `pin7` and a number token became the
      // text `pin7-8.1...e+298`, and of two tokens in a row only the first stayed a reference.
      const why = "password: holds a number reference (a number token) just after a digit, '.', '+', '-' or another number reference, or " +
        'just before a digit, where the synth does not find it: the account would get its placeholder digits as text instead of ' +
        'the number; put other text between them';
      const out = synth((scope) => {
        const pin = new TerraformVariable(scope, 'pin', { type: 'number', sensitive: true }).numberValue;
        for (const [i, password] of [`Zq7${pin}`, `Zq.${pin}`, `${pin}${pin}`, `${pin}7Zq`].entries()) {
          expect(violationLines(thrown(() => new SubAccount(scope, `A${i}`, { username: `a${i}`, password })))).toEqual([why]);
        }
        new SubAccount(scope, 'B', { username: 'b', password: `Zq:${pin}:${pin}` });
      });
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{ username: 'b', password: 'Zq:${var.pin}:${var.pin}' }]);
    });

    test('expressions whose text Terraform reads as written, plain references and numbers stay as they were', () => {
      const out = synth((scope) => {
        const variable = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true });
        const s = variable.stringValue;
        const pin = new TerraformVariable(scope, 'pin', { type: 'number', sensitive: true }).numberValue;
        const passwords: string[] = [
          s, Token.asString(variable.value), Fn.join('', ['a$${', s]), Fn.join('', ['x${y', s]), Fn.join('', ['$', s, '$']),
          `Pa%{${Fn.lower(s)}`, `pin${Fn.lengthOf([s])}`, `n${pin}`, Fn.format('%s-%d', [s, pin]),
        ];
        passwords.forEach((password, i) => new SubAccount(scope, `S${i}`, { username: `s${i}`, password }));
      });
      expect(bodies(out, 'proxyaccount_sub_account').map((b) => b.password)).toEqual([
        '${var.secret}', '${var.secret}', '${join("", ["a$$${", var.secret])}', '${join("", ["x$${y", var.secret])}',
        '${join("", ["$", var.secret, "$"])}', 'Pa%%{${lower(var.secret)}', 'pin${length([var.secret])}', 'n${var.pin}',
        '${format("%s-%d", var.secret, var.pin)}',
      ]);
    });

    test('a plain string cdktf quotes itself (a fallback of Fn.coalesce, Fn.lookup or Fn.try, a Fn.format argument) is kept as written', () => {
      // The check once took cdktf's own quotes for the user's `"` and refused these.
      const out = synth((scope) => {
        const variable = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true });
        const s = variable.stringValue;
        const pws = new TerraformVariable(scope, 'pws', { type: 'map(string)', sensitive: true }).value as Record<string, string>;
        const passwords: string[] = [
          Fn.coalesce([s, 'Default-pw']), Fn.format('%s-%s', [s, 'x']), Fn.try([s, 'fallback-pw']), Fn.lookup(pws, 'alice', 'fallback-pw'),
          Fn.coalesce([s, '']), Fn.coalesce([`Pa${s}`, 'x']), Fn.join('', Fn.sort(['b', s])), Fn.join('', Fn.concat([['a'], [s]])),
        ];
        passwords.forEach((password, i) => new SubAccount(scope, `S${i}`, { username: `s${i}`, password }));
      });
      expect(bodies(out, 'proxyaccount_sub_account').map((b) => b.password)).toEqual([
        '${coalesce(var.secret, "Default-pw")}', '${format("%s-%s", var.secret, "x")}', '${try(var.secret, "fallback-pw")}',
        '${lookup(var.pws, "alice", "fallback-pw")}', '${coalesce(var.secret, "")}', '${coalesce("Pa${var.secret}", "x")}',
        '${join("", sort(["b", var.secret]))}', '${join("", concat(["a"], [var.secret]))}',
      ]);
    });

    test('a Lazy value kept: its text alone next to a reference, or an expression it gives inside a call', () => {
      const out = synth((scope) => {
        const variable = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true });
        const s = variable.stringValue;
        const lazy = (value: string) => Lazy.stringValue({ produce: () => value });
        const passwords: string[] = [
          `${lazy('0123')}${s}`, `${lazy('Pa%')}${s}`, Fn.join('', [lazy(Fn.join('', ['Pa', s]))]), Fn.join('', [Token.asString(variable.value), 'x']),
        ];
        passwords.forEach((password, i) => new SubAccount(scope, `S${i}`, { username: `s${i}`, password }));
      });
      expect(bodies(out, 'proxyaccount_sub_account').map((b) => b.password)).toEqual([
        '0123${var.secret}', 'Pa%${var.secret}', '${join("", [join("", ["Pa", var.secret])])}', '${join("", [var.secret, "x"])}',
      ]);
    });

    test('an operator whose right operand is \'\', 0, false or null: refused where the writer drops it (cdktf), written as given where not (CDK Terrain)', () => {
      // cdktf 0.21 wrote `Op.neq(secret, '')` as `(var.secret != undefined)`: the plan failed and
      // printed the fallback password. `Op.sub(pin, 0)` became `-var.pin`, planned without a word.
      const FALSY = /^password: a Terraform expression in it holds an operator \(Op\.\*\) whose right operand is '', 0, false or null, which this version of cdktf writes as `undefined` .*; make that value the left operand/;
      const cases: Array<[(s: string, pin: number, flag: boolean) => string, string]> = [
        [(s) => Fn.conditional(Op.neq(s, ''), s, 'Zq7-fallback'), '${(var.secret != "") ? var.secret : "Zq7-fallback"}'],
        [(s) => Fn.conditional(Op.eq(s, null), 'Zq7-fallback', s), '${(var.secret == null) ? "Zq7-fallback" : var.secret}'],
        [(s, _pin, flag) => Fn.conditional(Op.or(flag, false), s, 'Zq7-fallback'), '${(var.flag || false) ? var.secret : "Zq7-fallback"}'],
        [(s, pin) => Fn.format('Zq7%s%d', [s, Op.sub(pin, 0)]), '${format("Zq7%s%d", var.secret, (var.pin - 0))}'],
      ];
      for (const [build, written] of cases) {
        const stack = new TerraformStack(Testing.app(), 'stack');
        const secret = new TerraformVariable(stack, 'secret', { type: 'string', sensitive: true }).stringValue;
        const pin = new TerraformVariable(stack, 'pin', { type: 'number' }).numberValue;
        const flag = new TerraformVariable(stack, 'flag', { type: 'bool' }).booleanValue as unknown as boolean;
        new SubAccount(stack, 'A', { username: 'a', password: build(secret, pin, flag) });
        if (FLAVOR.lib === 'cdktf') {
          const err = thrown(() => Testing.synth(stack));
          expect(violationLines(err)).toEqual([expect.stringMatching(FALSY)]);
          expect(err.message).not.toContain('Zq7');
        } else {
          const { resource } = JSON.parse(Testing.synth(stack)) as { resource: Record<string, Record<string, { password?: string }>> };
          expect(Object.values(resource.proxyaccount_sub_account).map((b) => b.password)).toEqual([written]);
        }
      }
    });

    test('kept in both: a falsy left operand, an operator without a right one, lists without gaps, a map value left out', () => {
      const out = synth((scope) => {
        const s = new TerraformVariable(scope, 'secret', { type: 'string', sensitive: true }).stringValue;
        const pin = new TerraformVariable(scope, 'pin', { type: 'number' }).numberValue;
        const unset: { suffix?: string } = {};
        const passwords: string[] = [
          Fn.conditional(Op.neq('', s), s, 'fallback'), Fn.format('%s%d', [s, Op.negate(pin)]), Fn.conditional(Op.not(Op.eq(s, 'x')), s, 'y'),
          Fn.join('-', Fn.concat([[s], ['Tail9']])), Fn.join('-', Fn.compact([s, unset.suffix] as string[])),
          Fn.lookup({ a: unset.suffix, b: s }, 'b', 'x'), Fn.conditional(Op.eq(s, 'x'), 'y', null),
        ];
        passwords.forEach((password, i) => new SubAccount(scope, `S${i}`, { username: `s${i}`, password }));
      });
      expect(bodies(out, 'proxyaccount_sub_account').map((b) => b.password)).toEqual([
        '${("" != var.secret) ? var.secret : "fallback"}', '${format("%s%d", var.secret, -var.pin)}', '${!(var.secret == "x") ? var.secret : "y"}',
        '${join("-", concat([var.secret], ["Tail9"]))}', '${join("-", compact([var.secret]))}', '${lookup({"b" = var.secret}, "b", "x")}',
        '${(var.secret == "x") ? "y" : null}',
      ]);
    });
  });

  describe('one construct per sub-account and provider configuration in a stack', () => {
    const why = 'declare each sub-account once, since two would each manage it (their creates collide, and in ' +
      'AUTHORITATIVE mode each apply would remove what the other grants); put these settings in that one';

    test('a second SubAccount for one username is refused, naming both; a roster member counts either way round', () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      new SubAccount(stack, 'Dave', { username: 'dave', accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: '203.0.113.5' }] });
      const err = thrown(() => new SubAccount(stack, 'Dave2', { username: 'dave', accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: '203.0.113.77' }] }));
      expect(err.message.split('\n')[0]).toBe("SubAccount 'stack/Dave2' is invalid (1 problem):");
      expect(violationLines(err)).toEqual([
        `username: SubAccount 'stack/Dave' already declares the sub-account "dave" for the stack's default proxyaccount provider: ${why}`,
      ]);
      expect(violationLines(thrown(() => new AccountRoster(stack, 'Roster', { roster: { teams: [{ name: 't', members: [{ username: 'dave' }] }] } })))).toEqual([
        `username: SubAccount 'stack/Dave' already declares the sub-account "dave" for the stack's default proxyaccount provider: ${why}`,
      ]);
      new AccountRoster(stack, 'Team', { roster: { teams: [{ name: 't', members: [{ username: 'erin' }] }] } });
      expect(violationLines(thrown(() => new SubAccount(stack, 'Erin', { username: 'erin' })))).toEqual([
        `username: SubAccount 'stack/Team/erin' already declares the sub-account "erin" for the stack's default proxyaccount provider: ${why}`,
      ]);
      expect(violationLines(thrown(() => new AccountRoster(stack, 'Again', { roster: { teams: [{ name: 't', members: [{ username: 'erin' }] }] } })))).toEqual([
        `username: SubAccount 'stack/Team/erin' already declares the sub-account "erin" for the stack's default proxyaccount provider: ${why}`,
      ]);
      const usernames = Object.values((JSON.parse(Testing.synth(stack)) as {
        resource: Record<string, Record<string, { username: string }>>;
      }).resource.proxyaccount_sub_account).map((b) => b.username);
      expect(usernames.sort()).toEqual(['dave', 'erin']);
    });

    test('the default provider passed explicitly is the same configuration; another alias, another stack or a username known only at apply is not', () => {
      const app = Testing.app();
      const stack = new TerraformStack(app, 'stack');
      const main = new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
      const west = new l1.provider.ProxyaccountProvider(stack, 'west', { alias: 'west' });
      new SubAccount(stack, 'Main', { username: 'alice' });
      expect(violationLines(thrown(() => new SubAccount(stack, 'Explicit', { username: 'alice', provider: main })))).toEqual([
        `username: SubAccount 'stack/Main' already declares the sub-account "alice" for the stack's default proxyaccount provider: ${why}`,
      ]);
      new SubAccount(stack, 'West', { username: 'alice', provider: west });
      expect(violationLines(thrown(() => new SubAccount(stack, 'West2', { username: 'alice', provider: west })))).toEqual([
        `username: SubAccount 'stack/West' already declares the sub-account "alice" for the provider alias "west": ${why}`,
      ]);
      new SubAccount(new TerraformStack(app, 'elsewhere'), 'Main', { username: 'alice' });
      const name = new TerraformVariable(stack, 'name', { type: 'string' }).stringValue;
      new SubAccount(stack, 'FromVar', { username: name });
      new SubAccount(stack, 'FromVar2', { username: name });
    });

    test('one refused for its own props does not count as declared; a missing username is no duplicate of the parent', () => {
      synth((scope) => {
        expect(() => new SubAccount(scope, 'Bad', { username: 'alice', monthlyLimitGb: -1 })).toThrow(/monthlyLimitGb/);
        new SubAccount(scope, 'Good', { username: 'alice' });
        new ParentAccess(scope, 'Parent');
        expect(violationLines(thrown(() => new SubAccount(scope, 'NoName', {} as SubAccountProps)))).toEqual([
          "username: is required: 1 to 30 letters, digits, '.', '@', '+' or '-'",
        ]);
      });
    });
  });

  describe('additive access lists (the default)', () => {
    test('one resource per IP, hostname and token, each tied to the sub-account by reference', () => {
      const out = synth((scope) => {
        new SubAccount(scope, 'Alice', {
          username: 'alice',
          ips: [{ ip: '203.0.113.7', label: 'office' }, { ip: '203.0.113.8' }],
          hostnames: ['build.example.com'],
          tokens: [{ label: 'ci', expiresAt: '2027-06-30' }],
        });
      });
      const subIds = Object.keys(out.resource.proxyaccount_sub_account);
      expect(subIds).toEqual([expect.stringMatching(/^Alice_[0-9A-F]{8}$/)]);
      const subRef = `\${proxyaccount_sub_account.${subIds[0]}.username}`;
      expect(bodies(out, 'proxyaccount_authorized_ip')).toEqual([
        { ip: '203.0.113.7', label: 'office', username: subRef },
        { ip: '203.0.113.8', username: subRef },
      ]);
      expect(bodies(out, 'proxyaccount_authorized_hostname')).toEqual([{ domain: 'build.example.com', username: subRef }]);
      expect(bodies(out, 'proxyaccount_bearer_token')).toEqual([{ label: 'ci', expires_at: '2027-06-30', username: subRef }]);
      expect(out.resource.proxyaccount_authorized_ips).toBeUndefined();
      expect(out.resource.proxyaccount_authorized_hostnames).toBeUndefined();
    });

    test('helpers create and return the per-entry resources', () => {
      const returned: unknown[] = [];
      const out = synth((scope) => {
        const sub = new SubAccount(scope, 'Alice', { username: 'alice' });
        returned.push(sub.allowIp('198.51.100.4', 'vpn'), sub.allowHostname('ci.example.com'),
          sub.addToken('deploy', { expiresAt: '2027-01-31' }));
        expect(sub.ips).toEqual([{ ip: '198.51.100.4', label: 'vpn' }]);
        expect(sub.hostnames).toEqual(['ci.example.com']);
        expect(sub.tokenLabels).toEqual(['deploy']);
        expect(sub.token('deploy')).toBe(returned[2]);
        expect(sub.token('nope')).toBeUndefined();
      });
      expect(returned[0]).toBeInstanceOf(l1.authorizedIp.AuthorizedIp);
      expect(returned[1]).toBeInstanceOf(l1.authorizedHostname.AuthorizedHostname);
      expect(returned[2]).toBeInstanceOf(l1.bearerToken.BearerToken);
      expect(out.raw).toHaveResourceWithProperties(l1.authorizedIp.AuthorizedIp, { ip: '198.51.100.4', label: 'vpn' });
      expect(out.raw).toHaveResourceWithProperties(l1.authorizedHostname.AuthorizedHostname, { domain: 'ci.example.com' });
      expect(out.raw).toHaveResourceWithProperties(l1.bearerToken.BearerToken, { label: 'deploy', expires_at: '2027-01-31' });
    });
  });

  describe('authoritative access lists', () => {
    test('one list resource per account, holding props and helper entries alike', () => {
      const returned: unknown[] = [];
      const out = synth((scope) => {
        const sub = new SubAccount(scope, 'Bob', {
          username: 'bob',
          accessList: AccessListMode.AUTHORITATIVE,
          ips: [{ ip: '198.51.100.1' }],
          hostnames: ['a.example.com'],
        });
        returned.push(sub.allowIp('198.51.100.2', 'vpn'), sub.allowHostname('b.example.com'));
      });
      expect(returned[0]).toBeInstanceOf(l1.authorizedIps.AuthorizedIps);
      expect(returned[1]).toBeInstanceOf(l1.authorizedHostnames.AuthorizedHostnames);
      const ref = `\${proxyaccount_sub_account.${Object.keys(out.resource.proxyaccount_sub_account)[0]}.username}`;
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([
        { username: ref, entries: [{ ip: '198.51.100.1' }, { ip: '198.51.100.2', label: 'vpn' }] },
      ]);
      expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ username: ref, domains: ['a.example.com', 'b.example.com'] }]);
      expect(out.resource.proxyaccount_authorized_ip).toBeUndefined();
      expect(out.resource.proxyaccount_authorized_hostname).toBeUndefined();
    });

    test('empty lists are still managed: authoritative with nothing declared means none allowed', () => {
      const out = synth((scope) => new SubAccount(scope, 'C', { username: 'c', accessList: AccessListMode.AUTHORITATIVE }));
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ username: expect.any(String), entries: [] }]);
      expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ username: expect.any(String), domains: [] }]);
    });
  });

  describe('validation', () => {
    test('lists every violation at once, and never the password itself', () => {
      const app = Testing.app();
      const stack = new TerraformStack(app, 'stack');
      const err = thrown(() => new SubAccount(stack, 'Bad', {
        username: 'not valid!',
        password: 'x'.repeat(129),
        firstName: 'A name far longer than twenty',
        email: 'not-an-email',
        monthlyLimitGb: -1,
        totalLimitGb: 1.5,
        ips: [{ ip: '300.1.2.3' }, { ip: '10.0.0.1', label: '' }, { ip: '10.0.0.1' }],
        hostnames: ['https://example.com'],
        tokens: [{ label: 'ci', expiresAt: '2027-02-30' }, { label: 'ci' }],
      }));
      expect(err.message).toMatch(/^SubAccount 'stack\/Bad' is invalid \(12 problems\):\n/);
      expect(violationLines(err)).toEqual([
        expect.stringMatching(/^username: must be 1 to 30 letters.*\(got "not valid!"\)$/),
        'password: must be at most 128 characters (got 129)',
        expect.stringMatching(/^firstName: must be at most 20 characters/),
        expect.stringMatching(/^email: must be an e-mail address/),
        expect.stringMatching(/^monthlyLimitGb: must be a whole number of GB from 0 to 999999999999999.*\(got -1\)$/),
        expect.stringMatching(/^totalLimitGb: .*\(got 1\.5\)$/),
        expect.stringMatching(/^ips\[0\]\.ip: must be an IPv4 address/),
        'ips[1].label: must not be empty when set',
        'ips: IP address "10.0.0.1" is listed more than once',
        expect.stringMatching(/^hostnames\[0\]: must be a hostname/),
        expect.stringMatching(/^tokens\[0\]\.expiresAt: must be a calendar date written YYYY-MM-DD/),
        'tokens: token label "ci" is listed more than once',
      ]);
      expect(err.message).not.toContain('xxxxxxxx');
    });

    test("limits: whole numbers up to the provider's maximum, 999999999999999; above it, refused naming it", () => {
      const out = synth((scope) => new SubAccount(scope, 'Max', { username: 'max', monthlyLimitGb: 999_999_999_999_999, totalLimitGb: 0 }));
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{ username: 'max', monthly_limit: 999_999_999_999_999, total_limit: 0 }]);
      const err = thrown(() => Testing.synthScope((scope) => new SubAccount(scope, 'Big', {
        username: 'big', monthlyLimitGb: 1_000_000_000_000_000, totalLimitGb: Number.MAX_SAFE_INTEGER,
      })));
      expect(violationLines(err)).toEqual([
        'monthlyLimitGb: must be a whole number of GB from 0 to 999999999999999, 0 meaning unlimited (got 1000000000000000)',
        'totalLimitGb: must be a whole number of GB from 0 to 999999999999999, 0 meaning unlimited (got 9007199254740991)',
      ]);
    });

    test('a list token as ips or hostnames: held whole by the AUTHORITATIVE lists, refused in ADDITIVE mode saying so', () => {
      const out = synth((scope) => {
        const hosts = new TerraformVariable(scope, 'hosts', { type: 'list(string)' }).listValue;
        const sub = new SubAccount(scope, 'A', { username: 'a', accessList: AccessListMode.AUTHORITATIVE, hostnames: hosts, ips: [{ ip: '203.0.113.7' }] });
        expect(sub.hostnames).toBe(hosts);
        expect(violationLines(thrown(() => sub.allowHostname('b.example.com')))).toEqual([
          'domain: the hostname list was given as a list token (known only at apply), and a single hostname cannot be added to it here: put it in that list',
        ]);
        sub.allowIp('203.0.113.8');
      });
      expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ username: expect.any(String), domains: '${var.hosts}' }]);
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ username: expect.any(String), entries: [{ ip: '203.0.113.7' }, { ip: '203.0.113.8' }] }]);

      const stack = new TerraformStack(Testing.app(), 'stack');
      const hosts = new TerraformVariable(stack, 'hosts', { type: 'list(string)' }).listValue;
      expect(violationLines(thrown(() => new SubAccount(stack, 'B', { username: 'b', hostnames: hosts })))).toEqual([
        'hostnames: a list token (a list known only at apply) is not supported in ADDITIVE mode, since each entry is its own resource, ' +
          'named after it: pass a list of values, or use AUTHORITATIVE, whose list resource takes a list known only at apply',
      ]);
    });

    test('skips unresolved tokens', () => {
      const out = synth((scope) => {
        const name = new TerraformVariable(scope, 'name', { type: 'string' });
        const limit = new TerraformVariable(scope, 'limit', { type: 'number' });
        new SubAccount(scope, 'FromVars', { username: name.stringValue, monthlyLimitGb: limit.numberValue });
      });
      expect(bodies(out, 'proxyaccount_sub_account')).toEqual([{ username: '${var.name}', monthly_limit: '${var.limit}' }]);
    });

    test('values known only at apply: refused in ADDITIVE mode, where they would name resources; held by AUTHORITATIVE lists', () => {
      const why = "ADDITIVE mode needs literal values, since each entry's resource is named after it; use AUTHORITATIVE for values known only at apply";
      const stack = new TerraformStack(Testing.app(), 'stack');
      const ip = new TerraformVariable(stack, 'ip', { type: 'string' }).stringValue;
      const host = new TerraformVariable(stack, 'host', { type: 'string' }).stringValue;
      expect(violationLines(thrown(() => new SubAccount(stack, 'A', { username: 'a', ips: [{ ip, label: 'office' }], hostnames: [host] }))))
        .toEqual([`ips[0].ip: ${why}`, `hostnames[0]: ${why}`]);
      const sub = new SubAccount(stack, 'B', { username: 'b' });
      expect(violationLines(thrown(() => sub.allowIp(ip)))).toEqual([`ip: ${why}`]);
      expect(violationLines(thrown(() => sub.allowHostname(host)))).toEqual([`domain: ${why}`]);

      const out = synth((scope) => {
        const v = new TerraformVariable(scope, 'ip', { type: 'string' }).stringValue;
        const h = new TerraformVariable(scope, 'host', { type: 'string' }).stringValue;
        new SubAccount(scope, 'C', { username: 'c', accessList: AccessListMode.AUTHORITATIVE, ips: [{ ip: v }] }).allowHostname(h);
      });
      expect(bodies(out, 'proxyaccount_authorized_ips')).toEqual([{ username: expect.any(String), entries: [{ ip: '${var.ip}' }] }]);
      expect(bodies(out, 'proxyaccount_authorized_hostnames')).toEqual([{ username: expect.any(String), domains: ['${var.host}'] }]);
    });

    test('token labels that would share a construct id (a "/" becomes "--") are refused like duplicates', () => {
      const err = thrown(() => Testing.synthScope((scope) => new SubAccount(scope, 'A', {
        username: 'a', tokens: [{ label: 'deploy/ci' }, { label: 'deploy--ci' }],
      })));
      expect(violationLines(err)).toEqual([
        'tokens: "deploy/ci" and "deploy--ci" are the same token label (labels compare without case, and a \'/\' becomes \'--\' in the token\'s construct id): list it once',
      ]);
    });

    test('a list prop that is no list (plain JavaScript: null, a string, an object) is refused, saying so', () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      const props = { username: 'a', accessList: AccessListMode.AUTHORITATIVE, ips: null, hostnames: { d: 'gw.example.com' }, tokens: 'ci' };
      expect(violationLines(thrown(() => new SubAccount(stack, 'A', props as unknown as SubAccountProps)))).toEqual([
        'ips: must be a list (got null)',
        'hostnames: must be a list (got an object)',
        'tokens: must be a list (got "ci")',
      ]);
    });

    test('a bad entry of a list prop (plain JavaScript: null, a hole, a string) is refused naming it, never with a TypeError', () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      // Index 1 of ips and 0 of hostnames are holes (sparse lists): taken for entries, they crashed the construct.
      const ips: unknown[] = [null];
      ips[2] = '203.0.113.9';
      ips[3] = { ip: '203.0.113.7' };
      const hostnames: unknown[] = [];
      hostnames[1] = 'ok.example.com';
      const props = { username: 'a', ips, hostnames, tokens: [null, 'ci', {}, { label: 'ok' }] };
      const err = thrown(() => new SubAccount(stack, 'A', props as unknown as SubAccountProps));
      expect(err).not.toBeInstanceOf(TypeError);
      expect(err.message.split('\n')[0]).toBe("SubAccount 'stack/A' is invalid (7 problems):");
      expect(violationLines(err)).toEqual([
        'ips[0]: must be an IP entry ({ ip, label }), an object (got null)',
        'ips[1]: must be an IP entry ({ ip, label }), an object (got undefined)',
        'ips[2]: must be an IP entry ({ ip, label }), an object (got "203.0.113.9")',
        expect.stringMatching(/^hostnames\[0\]: must be a hostname such as build\.example\.com.*\(got undefined\)$/),
        'tokens[0]: must be a token ({ label, expiresAt, active, importId }), an object (got null)',
        'tokens[1]: must be a token ({ label, expiresAt, active, importId }), an object (got "ci")',
        // Reported once: a missing label is no duplicate of another missing one.
        'tokens[2].label: is required: a string of 1 to 100 characters (got undefined)',
      ]);
    });

    test('props, or addToken options, that are no object (plain JavaScript: null) are refused, never with a TypeError', () => {
      const stack = new TerraformStack(Testing.app(), 'stack');
      expect(violationLines(thrown(() => new SubAccount(stack, 'A', null as unknown as SubAccountProps)))).toEqual([
        'props: must be SubAccount props ({ username, ... }), an object (got null)',
      ]);
      const sub = new SubAccount(stack, 'B', { username: 'b' });
      const err = thrown(() => sub.addToken('ci', null as unknown as TokenOptions));
      expect(err.message.split('\n')[0]).toBe('stack/B.addToken("ci") is invalid (1 problem):');
      expect(violationLines(err)).toEqual(['options: must be token options ({ expiresAt, active, importId }), an object (got null)']);
      expect(sub.tokenLabels).toEqual([]);
    });

    test('importExisting and token importIds need a plain username: it is their import ID', () => {
      const err = thrown(() => Testing.synthScope((scope) => {
        const name = new TerraformVariable(scope, 'name', { type: 'string' });
        new SubAccount(scope, 'FromVar', { username: name.stringValue, importExisting: true, tokens: [{ label: 'ci', importId: 4 }] });
      }));
      expect(violationLines(err)).toEqual([
        'importExisting: needs a plain username: it is the import ID of the sub-account',
        'tokens: a token importId needs a plain username: it is part of the import ID',
      ]);
    });

    test('helpers check their arguments, duplicates included, before creating anything', () => {
      synth((scope) => {
        const sub = new SubAccount(scope, 'A', { username: 'a', ips: [{ ip: '203.0.113.7' }], tokens: [{ label: 'ci' }] });
        expect(thrown(() => sub.allowIp('203.0.113.7')).message).toContain('"203.0.113.7" is already allowed');
        expect(thrown(() => sub.allowIp('1.2.3')).message).toContain('must be an IPv4 address');
        expect(thrown(() => sub.allowHostname('bad host')).message).toContain('must be a hostname');
        expect(thrown(() => sub.addToken('ci')).message).toContain('a token labelled "ci" already exists');
        expect(thrown(() => sub.addToken('x', { expiresAt: '31.01.2027' })).message).toContain('YYYY-MM-DD');
        expect(sub.node.children.map((c) => c.node.id)).toEqual(['Resource', 'Ip-203.0.113.7', 'Token-ci']);
        for (let i = 1; i < 100; i++) sub.allowIp(`10.0.${Math.floor(i / 256)}.${i % 256}`);
        expect(thrown(() => sub.allowIp('10.1.0.1')).message).toContain('at most 100 IP addresses per account (100 already)');
      });
    });
  });
});
