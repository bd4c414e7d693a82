// Provider logs, as terraform-plugin-log writes them. go-plugin reads the plugin's stderr line by
// line and re-logs each line inside Terraform's own log; lines in hclog's JSON shape keep their
// level. The level in force comes from TF_LOG_PROVIDER_PROXYACCOUNT, then TF_LOG_PROVIDER, then
// TF_LOG; below it nothing is formatted or written, so a run without TF_LOG pays nothing per RPC.

/** Log levels Terraform understands (hclog's). */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** Fields of one entry: never a secret. */
export type LogFields = Readonly<Record<string, string | number | boolean>>;

/** Writes one log entry (a no-op below the level in force). */
export type LogFn = (level: LogLevel, message: string, fields?: LogFields) => void;

const RANK: Readonly<Record<LogLevel | 'off', number>> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, off: 5 };

/**
 * The level in force: TF_LOG_PROVIDER_<NAME>, TF_LOG_PROVIDER, TF_LOG (TRACE, DEBUG, INFO, WARN,
 * ERROR, OFF; JSON means TRACE, as in Terraform). Unset: errors only.
 */
export function levelFromEnv(env: NodeJS.ProcessEnv = process.env, providerName = 'proxyaccount'): LogLevel | 'off' {
  const raw = [env[`TF_LOG_PROVIDER_${providerName.toUpperCase()}`], env.TF_LOG_PROVIDER, env.TF_LOG].find((v) => v !== undefined && v.trim() !== '');
  if (raw === undefined) return 'error';
  const v = raw.trim().toLowerCase();
  if (v === 'json') return 'trace';
  return v in RANK ? (v as LogLevel | 'off') : 'trace';
}

/** One hclog JSON line (without the newline) for go-plugin to pick up from stderr. */
export function hclogLine(level: LogLevel, message: string, fields: LogFields = {}, module = 'proxyaccount'): string {
  return JSON.stringify({
    '@level': level,
    '@message': message,
    '@module': module,
    // go-plugin parses exactly this layout (microseconds); anything else demotes the line to raw text.
    '@timestamp': new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
    ...fields,
  });
}

/** A logger: the LogFn plus the cheap check callers use before building costly fields. */
export interface Logger {
  readonly log: LogFn;
  /** True when entries of `level` are written. */
  enabled(level: LogLevel): boolean;
  /** A logger that adds `fields` (e.g. tf_rpc, tf_resource_type) to every entry. */
  with(fields: LogFields): Logger;
}

/**
 * A logger that formats hclog JSON lines at or above `level` and hands each to `sink`.
 * @param sink receives one line without newline @default writes the line to process.stderr
 * @param level the level in force @default levelFromEnv()
 */
export function createLogger(sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`), level: LogLevel | 'off' = levelFromEnv()): Logger {
  const min = RANK[level];
  const make = (base: LogFields): Logger => ({
    log: (lvl, message, fields) => {
      if (RANK[lvl] < min) return;
      sink(hclogLine(lvl, message, fields === undefined ? base : { ...base, ...fields }));
    },
    enabled: (lvl) => RANK[lvl] >= min,
    with: (fields) => make({ ...base, ...fields }),
  });
  return make({});
}
