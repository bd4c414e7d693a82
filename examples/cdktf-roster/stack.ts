// The roster stack: one sub-account per roster member, with its limits, IP and hostname
// allow-lists and tokens, plus outputs for the token values (sensitive) and a summary.
import { LocalBackend, TerraformOutput, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { AccountRoster, RosterDefinition, l1 } from 'cdktf-provider-proxyaccount';

/** Options of a RosterStack. */
export interface RosterStackProps {
  /** The checked roster. */
  readonly roster: RosterDefinition;
  /** The roster file's name, for error messages. */
  readonly source: string;
  /** The local backend's state path, relative to the stack's directory under cdktf.out (or absolute). */
  readonly stateFile: string;
}

/** Terraform output names allow letters, digits, `_` and `-`; usernames may also hold `.@+`. */
function outputName(...parts: string[]): string {
  return parts.map((p) => p.replace(/[^A-Za-z0-9_-]/g, '_')).join('__');
}

export class RosterStack extends TerraformStack {
  public readonly roster: AccountRoster;

  public constructor(scope: Construct, id: string, props: RosterStackProps) {
    super(scope, id);
    new LocalBackend(this, { path: props.stateFile });
    // Every provider setting comes from the PROXYACCOUNT_* environment variables, so no
    // credential is ever written into the synthesized configuration.
    new l1.provider.ProxyaccountProvider(this, 'proxyaccount', {});

    this.roster = new AccountRoster(this, 'Roster', { roster: props.roster, source: props.source });

    const names = new Map<string, string>();
    for (const sub of this.roster.subAccounts) {
      for (const label of sub.tokenLabels) {
        const token = sub.token(label);
        if (!token) continue;
        const name = outputName('token', sub.username, label);
        const clash = names.get(name);
        if (clash) throw new Error(`${props.source}: tokens ${clash} and ${sub.username}/${label} would share the output ${name}`);
        names.set(name, `${sub.username}/${label}`);
        new TerraformOutput(this, name, {
          value: token.token,
          sensitive: true,
          description: `Bearer token "${label}" of ${sub.username}`,
        });
      }
    }
    new TerraformOutput(this, 'sub_accounts', {
      value: this.roster.subAccounts.map((s) => s.username),
      description: 'Usernames of the sub-accounts in the roster',
    });
    new TerraformOutput(this, 'token_outputs', {
      value: Object.fromEntries(names),
      description: 'Which output holds which token (username/label)',
    });
  }
}
