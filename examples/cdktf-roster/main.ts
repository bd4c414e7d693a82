// CDKTF app: manages a team's sub-accounts from the reviewed roster file.
//
//   ROSTER_FILE        the roster (YAML or JSON)      default: roster.yaml beside this file
//   ROSTER_STATE_FILE  local state, relative to the   default: terraform.tfstate
//                      stack's directory in cdktf.out
//   PROXYACCOUNT_*     provider settings (base URL, credentials, CA file): see the provider docs
import * as path from 'node:path';
import { App } from 'cdktf';
import { readRosterFile } from './roster-file';
import { RosterStack } from './stack';

/** The directory of this example's sources (the bundle built by run.js passes it in). */
export function main(exampleDir: string): void {
  const file = readRosterFile(process.env.ROSTER_FILE ?? path.join(exampleDir, 'roster.yaml'));
  const app = new App();
  new RosterStack(app, 'roster', {
    roster: file.roster,
    source: file.name,
    stateFile: process.env.ROSTER_STATE_FILE ?? 'terraform.tfstate',
  });
  app.synth();
}
