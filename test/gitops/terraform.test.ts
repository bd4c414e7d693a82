// What the one terraform runner keeps of a failure: terraform's diagnostics whole, from the first
// "Error:" line, whichever stream carries it; without one, the end of the output; past the limit,
// the beginning (which names the cause), with a count of what was left out.
import { diagnosticsOf } from '../../src/gitops/terraform';

describe('diagnosticsOf', () => {
  it('keeps everything from the first Error: line, boxed or not, and drops the progress before it', () => {
    const stdout = 'proxyaccount_sub_account.a: Refreshing state... [id=a]\n\nPlanning failed.\n';
    const stderr = '╷\n│ Error: Authentication failed\n│\n│ GET /api/sub/get/ failed\n│ with 401 Unauthorized\n╵\n';
    expect(diagnosticsOf({ stdout, stderr })).toBe('│ Error: Authentication failed\n│\n│ GET /api/sub/get/ failed\n│ with 401 Unauthorized\n╵');
    expect(diagnosticsOf({ stdout: '', stderr: 'Error: Invalid provider configuration\n\nbase_url is not set\n' })).toBe(
      'Error: Invalid provider configuration\n\nbase_url is not set',
    );
  });

  it('without an Error: line keeps the last 40 non-empty lines', () => {
    const stdout = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    const kept = diagnosticsOf({ stdout, stderr: '' }).split('\n');
    expect(kept).toHaveLength(40);
    expect(kept[0]).toBe('line 11');
  });

  it('cuts a very long diagnostic at a line end, keeping its beginning and saying how much is left out', () => {
    const stderr = `Error: Unable to read sub-account\n\nGET failed with 401\n${Array.from({ length: 400 }, (_, i) => `repeated line ${i}`).join('\n')}`;
    const kept = diagnosticsOf({ stdout: '', stderr });
    expect(kept.startsWith('Error: Unable to read sub-account\n\nGET failed with 401\n')).toBe(true);
    expect(kept.length).toBeLessThan(6200);
    const left = /\n… \((\d+) more lines of terraform's output\)$/.exec(kept);
    expect(left).not.toBeNull();
    // The lines shown and the lines counted as left out are all 403 of them.
    expect(kept.split('\n').length - 1 + Number(left![1])).toBe(403);
  });
});
