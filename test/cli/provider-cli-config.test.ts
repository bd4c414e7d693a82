// `--cli-config FILE` of `provider install` and `provider mirror` is written like the mirror's
// files: the CLI configuration decides where Terraform takes the provider from, so a symbolic link
// planted at FILE, a FILE of another user's, or a directory others can write is refused, and the
// file is written through an O_EXCL | O_NOFOLLOW temporary file renamed into place.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fakeRelease } from '../release/helpers/fake-release';
import { providerCli } from '../release/helpers/provider-cli';

const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;
const OTHER = 12345;

let root: string;
let release: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-cli-config-'));
  release = await fakeRelease(path.join(root, 'release'), ['linux_amd64']);
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

let cases = 0;
/** A directory of this user's, mode 0755, for one test. */
const fresh = (): string => {
  const dir = path.join(root, `case-${cases++}`);
  fs.mkdirSync(dir, { mode: 0o755 });
  return dir;
};

/** The two commands with --cli-config, writing their mirror into `dir`/mirror and the configuration to `file`. */
const COMMANDS: [string, (dir: string, file: string) => string[]][] = [
  [
    'provider install --from',
    (dir, file) => ['provider', 'install', '--from', release, '--platform', 'linux_amd64', '--dir', path.join(dir, 'mirror'), '--cli-config', file],
  ],
  ['provider mirror', (dir, file) => ['provider', 'mirror', '--from', release, '--dir', path.join(dir, 'mirror'), '--cli-config', file]],
];

const WHY =
  'Terraform takes providers from where this file says, so it must be a file of your own, not a link, in a directory of your own that nobody else can write';

describe.each(COMMANDS)('%s --cli-config', (_name, args) => {
  it('refuses a symbolic link, leaving the file it points to untouched', async () => {
    const dir = fresh();
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious');
    const link = path.join(dir, 'link.rc');
    fs.symlinkSync(victim, link);
    const res = await providerCli(args(dir, link));
    expect(res.error).toBe(
      `refusing to write the CLI configuration (--cli-config) ${link}: it is a symbolic link (give the file it points to instead). ${WHY}`,
    );
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  itAsRoot("refuses a file of another user's, which they could change afterwards", async () => {
    const dir = fresh();
    const planted = path.join(dir, 'planted.rc');
    fs.writeFileSync(planted, '', { mode: 0o666 });
    fs.chownSync(planted, OTHER, OTHER);
    const res = await providerCli(args(dir, planted));
    expect(res.error).toBe(
      `refusing to write the CLI configuration (--cli-config) ${planted}: it is owned by uid ${OTHER}, not by the current user (uid 0). ${WHY}`,
    );
    expect(fs.readFileSync(planted, 'utf8')).toBe('');
  });

  it('refuses a directory that group or others can write, and names a missing one', async () => {
    const shared = fresh();
    fs.chmodSync(shared, 0o777);
    const file = path.join(shared, 'terraform.rc');
    const res = await providerCli(args(fresh(), file));
    expect(res.error).toBe(
      `refusing to write the CLI configuration (--cli-config) ${file}: its directory ${shared} is writable by group or others (run chmod go-w '${shared}', or write it elsewhere). ${WHY}`,
    );
    expect(fs.existsSync(file)).toBe(false);
    const missing = path.join(root, 'no-such-dir', 'terraform.rc');
    expect((await providerCli(args(fresh(), missing))).error).toBe(
      `cannot write the CLI configuration (--cli-config) ${missing}: its directory ${path.dirname(missing)} does not exist`,
    );
  });

  itAsRoot("refuses a directory of another user's", async () => {
    const theirs = fresh();
    fs.chownSync(theirs, OTHER, OTHER);
    const file = path.join(theirs, 'terraform.rc');
    const res = await providerCli(args(fresh(), file));
    expect(res.error).toBe(
      `refusing to write the CLI configuration (--cli-config) ${file}: its directory ${theirs}: it is owned by uid ${OTHER}, not by the current user (uid 0). ${WHY}`,
    );
  });

  it('replaces a file of its own through a temporary file, keeping its permissions, and leaves no temporary file', async () => {
    const dir = fresh();
    const file = path.join(dir, 'terraform.rc');
    fs.writeFileSync(file, 'old', { mode: 0o600 });
    const before = fs.statSync(file).ino;
    const res = await providerCli(args(dir, file));
    expect(res.error).toBeUndefined();
    expect(fs.readFileSync(file, 'utf8')).toContain('provider_installation {');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).ino).not.toBe(before); // a new file renamed into place, not the old one rewritten
    expect(fs.readdirSync(dir).sort()).toEqual(['mirror', 'terraform.rc']);
  });
});
