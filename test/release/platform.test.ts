// The platform `provider install` picks when none is given: a release holds Windows executables,
// while the bundled Node.js script (plain `provider install`) needs a shell line to start it.
import { terraformPlatform } from '../../src/cli/provider';

describe('terraformPlatform', () => {
  it("names this machine's platform as Terraform does", () => {
    expect(terraformPlatform('linux', 'x64')).toBe('linux_amd64');
    expect(terraformPlatform('darwin', 'arm64')).toBe('darwin_arm64');
  });

  it('installs a release on Windows, but refuses the bundled script there', () => {
    expect(terraformPlatform('win32', 'x64', true)).toBe('windows_amd64');
    expect(() => terraformPlatform('win32', 'x64')).toThrow(/cannot be installed for win32\/x64/);
  });

  it('names an unknown architecture', () => {
    expect(() => terraformPlatform('linux', 'mips', true)).toThrow(/linux\/mips/);
  });
});
