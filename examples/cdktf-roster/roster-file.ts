// Reads the reviewed roster file (YAML or JSON, by extension) and checks it before any construct
// is built, so a bad file fails with every problem listed and where it is.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AccountRoster, RosterDefinition } from 'cdktf-provider-proxyaccount';

/** A roster file, parsed and checked. */
export interface RosterFile {
  /** The file as given, for messages. */
  readonly name: string;
  readonly roster: RosterDefinition;
}

/** Parses `file` as YAML (`.yaml`, `.yml`) or JSON (anything else) and validates it as a roster. */
export function readRosterFile(file: string): RosterFile {
  const text = fs.readFileSync(file, 'utf8');
  const name = path.relative(process.cwd(), file) || file;
  let data: unknown;
  try {
    data = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} is not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const violations = AccountRoster.validate(data);
  if (violations.length > 0) {
    throw new Error(`${name} is not a valid roster (${violations.length} problem${violations.length === 1 ? '' : 's'}):\n` +
      violations.map((v) => `  - ${v}`).join('\n'));
  }
  // validate() has just checked the shape, so the data is a RosterDefinition.
  return { name, roster: data as RosterDefinition };
}
