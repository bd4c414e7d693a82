// `proxyaccount provider …` run in-process, for the tests of install and mirror: what it wrote to
// stderr, and the message it failed with (stdout, the CLI configuration, is dropped).
import { Command } from 'commander';
import { register } from '../../../src/cli/provider';

/** Runs `proxyaccount ARGS` (provider commands) in-process; returns stderr and the error it failed with. */
export async function providerCli(args: string[]): Promise<{ stderr: string; error?: string }> {
  const program = new Command().exitOverride();
  register(program);
  let stderr = '';
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(args, { from: 'user' });
    return { stderr };
  } catch (e) {
    return { stderr, error: (e as Error).message };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}
