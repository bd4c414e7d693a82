// The demo's progress output: numbered step headers and indented detail lines under them.

/** The steps of the demo, in order; the failure message names them by number and title. */
export const STEPS = [
  'Start the emulator',
  'Synthesize the example app',
  'terraform init (offline, from a local provider mirror)',
  'Plan',
  'Apply',
  'Read the account back through the account store',
  'Out-of-band change, then drift detection',
  'Converge, confirm, clean up',
] as const;

const INDENT = '      ';

/** Writes the progress of a demo run. */
export class Progress {
  /** The step under way (1-based); 0 before the first. */
  current = 0;
  /** Its title as printed. */
  currentTitle = 'prerequisites';

  constructor(private readonly write: (text: string) => void) {}

  /** Starts step `n`, printing `[n/8] title`. */
  step(n: number, title: string = STEPS[n - 1]): void {
    this.current = n;
    this.currentTitle = title;
    this.write(`\n[${n}/${STEPS.length}] ${title}\n`);
  }

  /** A detail line of the current step, indented under its title. */
  line(text: string): void {
    for (const l of text.split('\n')) this.write(`${`${INDENT}${l}`.trimEnd()}\n`);
  }

  /** Several detail lines. */
  lines(texts: readonly string[]): void {
    for (const t of texts) this.line(t);
  }

  /** The command a step runs, as the user would type it. */
  command(args: readonly string[]): void {
    this.line(`$ ${args.join(' ')}`);
  }

  /** A line not under any step (the banner, the final result). */
  plain(text: string): void {
    this.write(`${text}\n`);
  }

  /** The step under way, for messages: `step 5/8 (Apply)`. */
  where(): string {
    return this.current === 0 ? 'the prerequisites check' : `step ${this.current}/${STEPS.length} (${this.currentTitle})`;
  }
}
