// Property-based tests of the SDK's validators: whatever they are given (control characters,
// bidi characters, astral Unicode, huge or fractional numbers, wrong types), they either return
// the value unchanged or throw InvalidArgumentError naming the field, and they accept exactly
// what docs/sdk.md documents. Runs are bounded to keep the file to a few seconds.
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/sdk';
import {
  checkDomain,
  checkEmail,
  checkExpiryDate,
  checkIpLabel,
  checkIpv4,
  checkLimit,
  checkName,
  checkPassword,
  checkProxy,
  checkTokenId,
  checkTokenLabel,
  checkUsername,
} from '../../src/sdk/validation';

const RUNS = { numRuns: 300 };
const UNSAFE = /[\u0000-\u001F\u007F\u202A-\u202E\u2066-\u2069]/u;

/** Strings biased toward trouble: any code unit, astral characters, controls and bidi marks. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 140 }),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.string({
    unit: fc.constantFrom('a', '.', '-', '0', '9', ' ', '\u0000', '\n', '\r', '\t', '\u007f', '\u202e', '\u2066', '🔑', 'é', '@', '+', '%', '&', '='),
    maxLength: 40,
  }),
);
const anything = fc.oneof(nasty, fc.anything(), fc.double(), fc.bigInt().map(String));

/** Runs `check` and returns what it decided; fails on any throw other than InvalidArgumentError. */
function verdict(check: (v: unknown) => unknown, value: unknown, field: string): boolean {
  try {
    expect(check(value)).toBe(value);
    return true;
  } catch (e) {
    if (!(e instanceof InvalidArgumentError)) throw e;
    expect(e.field).toBe(field);
    return false;
  }
}

const codePoints = (s: string): number => [...s].length;

const stringRules: ReadonlyArray<[string, (v: unknown) => unknown, string, (s: string) => boolean]> = [
  ['checkUsername', checkUsername, 'username', (s) => /^[A-Za-z0-9.@+-]{1,30}$/.test(s)],
  ['checkIpLabel', checkIpLabel, 'label', (s) => codePoints(s) <= 100 && !UNSAFE.test(s)],
  ['checkTokenLabel', checkTokenLabel, 'label', (s) => codePoints(s) <= 100 && !UNSAFE.test(s)],
  ['checkName', (v) => checkName(v, 'firstName'), 'firstName', (s) => codePoints(s) <= 20 && !UNSAFE.test(s)],
  ['checkPassword', checkPassword, 'password', (s) => codePoints(s) <= 128],
  ['checkProxy', checkProxy, 'proxy', (s) => s !== '' && !UNSAFE.test(s) && !/\s/.test(s)],
];

describe.each(stringRules)('%s', (_name, check, field, documented) => {
  it('accepts exactly what it documents, and throws nothing but InvalidArgumentError', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        expect(verdict(check, s, field)).toBe(documented(s));
      }),
      RUNS,
    );
  });

  it('refuses non-strings with InvalidArgumentError', () => {
    fc.assert(
      fc.property(anything, (v) => {
        if (typeof v !== 'string') expect(verdict(check, v, field)).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('checkDomain', () => {
  const label = fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,20}[A-Za-z0-9])?$/);
  it('accepts generated host names', () => {
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 5 }), fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/), (labels, tld) => {
        const name = [...labels, tld].join('.');
        expect(verdict(checkDomain, name, 'domain')).toBe(true);
      }),
      RUNS,
    );
  });
  it('refuses every name whose last label the resolver reads as a number (decimal, or 0x hex), not one with it before a name', () => {
    const numeric = fc.oneof(fc.stringMatching(/^[0-9]{1,12}$/), fc.stringMatching(/^0[xX][0-9a-fA-F]{0,8}$/));
    fc.assert(
      fc.property(fc.array(label, { maxLength: 4 }), numeric, (labels, last) => {
        expect(verdict(checkDomain, [...labels, last].join('.'), 'domain')).toBe(false);
        // The same label before a name is a name: only the last one makes an address.
        expect(verdict(checkDomain, [...labels, last, 'example'].join('.'), 'domain')).toBe(true);
      }),
      RUNS,
    );
  });
  it('refuses anything with an unsafe character, a space, a wildcard or an IPv4 shape', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const ok = verdict(checkDomain, s, 'domain');
        if (UNSAFE.test(s) || /[\s*_]/.test(s) || /^[0-9.]+$/.test(s) || s === '') expect(ok).toBe(false);
      }),
      RUNS,
    );
  });
});

describe('checkEmail', () => {
  it('never accepts whitespace or unsafe characters, nor a missing @', () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const ok = verdict(checkEmail, s, 'email');
        if (s !== '' && (UNSAFE.test(s) || /\s/.test(s) || !s.includes('@'))) expect(ok).toBe(false);
        if (ok && s !== '') expect(codePoints(s)).toBeLessThanOrEqual(255);
      }),
      RUNS,
    );
  });
});

describe('checkIpv4', () => {
  const octet = fc.integer({ min: 0, max: 255 });
  it('accepts every canonical dotted quad', () => {
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (o) => {
        expect(verdict(checkIpv4, o.join('.'), 'ip')).toBe(true);
      }),
      RUNS,
    );
  });
  it('accepts a string only when it round-trips through its four numbers', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          nasty,
          fc
            .array(fc.oneof(fc.integer({ min: -5, max: 1000 }).map(String), fc.constantFrom('00', '010', '1/8', ' 1')), { minLength: 3, maxLength: 5 })
            .map((a) => a.join('.')),
        ),
        (s) => {
          const parts = s.split('.');
          const canonical = parts.length === 4 && parts.every((p) => /^\d+$/.test(p) && String(Number(p)) === p && Number(p) <= 255);
          expect(verdict(checkIpv4, s, 'ip')).toBe(canonical);
        },
      ),
      RUNS,
    );
  });
});

describe('numbers', () => {
  const numbers = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(1e20, Number('9007199254740993'), -0, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Number.NaN, Infinity),
    fc.anything(),
  );
  it('checkLimit accepts exactly safe integers >= 0', () => {
    fc.assert(
      fc.property(numbers, (v) => {
        expect(verdict((x) => checkLimit(x, 'monthlyLimit'), v, 'monthlyLimit')).toBe(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
      }),
      RUNS,
    );
  });
  it('checkTokenId accepts exactly safe integers >= 1', () => {
    fc.assert(
      fc.property(numbers, (v) => {
        expect(verdict(checkTokenId, v, 'id')).toBe(typeof v === 'number' && Number.isSafeInteger(v) && v >= 1);
      }),
      RUNS,
    );
  });
});

describe('checkExpiryDate', () => {
  it('accepts exactly real calendar dates written YYYY-MM-DD (and "")', () => {
    const dates = fc.oneof(
      nasty,
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
    );
    fc.assert(
      fc.property(dates, (s) => {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
        let real = false;
        if (m !== null) {
          // An oracle independent of Date: the Gregorian month lengths.
          const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
          const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
          const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
          real = y >= 1 && days !== undefined && d >= 1 && d <= days;
        }
        expect(verdict(checkExpiryDate, s, 'expiresAt')).toBe(s === '' || real);
      }),
      RUNS,
    );
  });
});
