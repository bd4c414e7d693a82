// A state file edited by hand, with the real terraform: an authorized IP, hostname or proxy whose
// identifying attribute now names another managed entry (its id kept). Before, the apply deleted
// the other resource's entry; now every command stops with an error naming the state, and every
// entry survives.
import { useAccount } from './helpers/account';

jest.setTimeout(180_000);

const account = useAccount({ resetEach: false });

interface StateFile {
  resources: Array<{ type: string; name: string; instances: Array<{ attributes: Record<string, unknown> }> }>;
}

describe('a state edited so that one entry names another managed one', () => {
  it.each([
    ['proxyaccount_authorized_ip', 'ip', '203.0.113.31', '203.0.113.32', 'authorized IP'],
    ['proxyaccount_authorized_hostname', 'domain', 'a.edit.example.com', 'b.edit.example.com', 'authorized hostname'],
    ['proxyaccount_authorized_proxy', 'proxy', 'us-ny', 'gb-lon', 'authorized proxy'],
  ])('%s: the apply fails naming the state, and deletes nothing', async (type, attribute, a, b, noun) => {
    const ws = await account.workspace();
    ws.config(`
resource "${type}" "a" {
  ${attribute} = "${a}"
}

resource "${type}" "b" {
  ${attribute} = "${b}"
}
`);
    await ws.apply();
    const state = JSON.parse(ws.read('terraform.tfstate')) as StateFile;
    state.resources.find((r) => r.name === 'a')!.instances[0]!.attributes[attribute] = b;
    ws.write('terraform.tfstate', JSON.stringify(state));
    // The configuration no longer wants "a": its destroy would act on the state's value.
    ws.config(`
resource "${type}" "b" {
  ${attribute} = "${b}"
}
`);
    const apply = await ws.run(['apply', '-no-color', '-input=false', '-auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(new RegExp(`Inconsistent ${noun} state`));
    // Terraform names no address for an object only the state holds: the detail names its values.
    expect(apply.stderr.replace(/\s+/g, ' ')).toContain(`${attribute} "${b}"`);
    expect(apply.stderr.replace(/\s+/g, ' ')).toContain(`"${a}"`);
    const snapshot = JSON.stringify(await account.snapshot());
    expect(snapshot).toContain(`"${a}`);
    expect(snapshot).toContain(`"${b}`);
  });
});
