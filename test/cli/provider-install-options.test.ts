// `provider install` refuses option combinations it would otherwise ignore without a word: the
// mirror a user asked for must not silently go unmade.
import { buildProgram } from '../../src/cli/main';

function run(...args: string[]): Promise<unknown> {
  const program = buildProgram().exitOverride();
  return program.parseAsync(['node', 'proxyaccount', ...args]);
}

describe('provider install --dev-overrides', () => {
  it('is refused with --dir, which it would ignore (it installs nothing)', async () => {
    await expect(run('provider', 'install', '--dev-overrides', '--dir', '/nonexistent/mirror')).rejects.toThrow(
      /--dev-overrides .*installs nothing; it cannot be combined with --dir/,
    );
  });

  it('is refused with --from, as before', async () => {
    await expect(run('provider', 'install', '--dev-overrides', '--from', '/nonexistent/release')).rejects.toThrow(/cannot be combined with --from/);
  });
});
