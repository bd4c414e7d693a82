// An accounts file that is not JSON is refused by the position of its fault, never by quoting the
// text around it: V8's messages do, and the usual slip is a password written without its quotes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { loadAccountsFile } from '../../src/emulator';

const PASSWORD = 'ACCTPW-Secret-Q77';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pa-accounts-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error loading `text` as an accounts file throws. */
function refusal(text: string): Error {
  const file = join(dir, 'accounts.json');
  writeFileSync(file, text);
  try {
    loadAccountsFile(file);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the file to be refused');
}

/** Everything a program may print of an error. */
function printed(err: Error): string {
  return `${inspect(err, { depth: null, showHidden: true })}\n${JSON.stringify(err)}\n${String(err.stack)}`;
}

describe('an accounts file that is not JSON', () => {
  it.each([
    ['a password without quotes', `{"accounts":[{"username":"acme","plan":"plan20","password":${PASSWORD}}]}`, 'at line 1, column 60'],
    ['a trailing comma after the entry', `{"accounts":[{"username":"acme","password":"${PASSWORD}","plan":"plan20"},]}`, 'at line 1, column 81'],
    ['a missing comma after the password', `{"accounts":[{"username":"acme","password":"${PASSWORD}" "plan":"plan20"}]}`, 'at line 1, column 64'],
    [
      'a password without quotes, on line 4',
      `{\n  "accounts": [\n    {"username": "acme", "plan": "plan20",\n     "password": ${PASSWORD}}\n  ]\n}\n`,
      'at line 4, column 18',
    ],
  ])('%s: names the line and column, and quotes none of the file', (_what, text, where) => {
    const err = refusal(text);
    expect(err.message).toBe(`invalid accounts file ${join(dir, 'accounts.json')}: not JSON (${where})`);
    const out = printed(err);
    expect(out).not.toContain('ACCTPW');
    expect(out).not.toContain('Secret');
  });

  it.each([[''], ['  \n'], ['{"accounts":[{"username":"acme"']])('%j: says it ends early', (text) => {
    expect(refusal(text).message).toMatch(/: not JSON \(it ends early\)$/);
  });
});
