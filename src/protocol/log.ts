// Provider logs. go-plugin reads the plugin's stderr line by line and re-logs each line inside
// Terraform's own log; lines in hclog's JSON shape keep their level, so TF_LOG=DEBUG shows our
// debug lines and TF_LOG=WARN hides them.

/** Log levels Terraform understands (hclog's). */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** Writes one log entry. */
export type LogFn = (level: LogLevel, message: string, fields?: Readonly<Record<string, string | number | boolean>>) => void;

/** One hclog JSON line (without the newline) for go-plugin to pick up from stderr. */
export function hclogLine(
  level: LogLevel,
  message: string,
  fields: Readonly<Record<string, string | number | boolean>> = {},
  module = 'proxyaccount',
): string {
  return JSON.stringify({
    '@level': level,
    '@message': message,
    '@module': module,
    // go-plugin parses exactly this layout (microseconds); anything else demotes the line to raw text.
    '@timestamp': new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    ...fields,
  });
}

/**
 * A LogFn that formats hclog JSON lines and hands each to `sink`.
 * @param sink receives one line without newline @default writes the line to process.stderr
 */
export function createLogger(sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): LogFn {
  return (level, message, fields) => sink(hclogLine(level, message, fields));
}
