// Entry point of the `proxyaccount` command. Each subcommand lives in its own module and
// registers itself here; modules are required lazily so that `--help` stays fast.
import { Command } from 'commander';

/** A subcommand module exports one `register` function that adds its command to the program. */
export interface SubcommandModule {
  register(program: Command): void;
}

const SUBCOMMANDS: ReadonlyArray<() => SubcommandModule> = [
  () => require('./emulator') as SubcommandModule,
  () => require('./provider') as SubcommandModule,
  () => require('./demo') as SubcommandModule,
  () => require('./review') as SubcommandModule,
  () => require('./drift') as SubcommandModule,
  () => require('./export') as SubcommandModule,
  () => require('./tokens') as SubcommandModule,
  () => require('./plan-file') as SubcommandModule,
];

export function buildProgram(): Command {
  const program = new Command('proxyaccount')
    .description('Infrastructure-as-code tooling for proxy-service accounts')
    .version(require('../../package.json').version as string)
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions();
  for (const load of SUBCOMMANDS) load().register(program);
  return program;
}

export function main(argv: string[]): void {
  buildProgram()
    .parseAsync(argv)
    .catch((err: unknown) => {
      process.stderr.write(`proxyaccount: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
