// CDKTF app: manages a team's sub-accounts from the reviewed roster file.
//
//   ROSTER_FILE        the roster (YAML or JSON)      default: roster.yaml beside this file
//   ROSTER_STATE_FILE  the local backend's path, as   default: .state/terraform.tfstate beside
//                      Terraform reads it (relative   this file, outside cdktf.out
//                      to the stack's directory)
//   PROXYACCOUNT_*     provider settings (base URL, credentials, CA file): see the provider docs
import * as path from 'node:path';
import { App } from 'cdktf';
import { readRosterFile } from './roster-file';
import { RosterStack } from './stack';

/**
 * `.state/terraform.tfstate` beside the app's sources, written relative to the stack's directory
 * (`<outdir>/stacks/roster`), where Terraform resolves it: the state lives outside cdktf.out, which
 * every synth rewrites and which is easily deleted, and the output holds no absolute path.
 */
function defaultStateFile(outdir: string, exampleDir: string): string {
  return path.relative(path.resolve(outdir, 'stacks', 'roster'), path.join(exampleDir, '.state', 'terraform.tfstate'));
}

/** The directory of this example's sources (the bundle built by run.js passes it in). */
export function main(exampleDir: string): void {
  const file = readRosterFile(process.env.ROSTER_FILE ?? path.join(exampleDir, 'roster.yaml'));
  const app = new App();
  new RosterStack(app, 'roster', {
    roster: file.roster,
    source: file.name,
    stateFile: process.env.ROSTER_STATE_FILE ?? defaultStateFile(app.outdir, exampleDir),
  });
  app.synth();
}
