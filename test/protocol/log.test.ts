// Log levels as terraform-plugin-log reads them: TF_LOG_PROVIDER_PROXYACCOUNT, then
// TF_LOG_PROVIDER, then TF_LOG; below the level in force nothing is formatted or written.
import { createLogger, levelFromEnv } from '../../src/protocol/log';

describe('levelFromEnv', () => {
  it.each([
    [{}, 'error'],
    [{ TF_LOG: 'DEBUG' }, 'debug'],
    [{ TF_LOG: 'json' }, 'trace'],
    [{ TF_LOG: 'TRACE', TF_LOG_PROVIDER: 'warn' }, 'warn'],
    [{ TF_LOG: 'TRACE', TF_LOG_PROVIDER: 'warn', TF_LOG_PROVIDER_PROXYACCOUNT: 'off' }, 'off'],
    [{ TF_LOG_PROVIDER_PROXYACCOUNT: ' Info ' }, 'info'],
  ])('reads %p as %s', (env, level) => {
    expect(levelFromEnv(env as NodeJS.ProcessEnv)).toBe(level);
  });
});

describe('createLogger', () => {
  it('formats and writes only at or above the level, with the fields of with()', () => {
    const lines: string[] = [];
    let formatted = 0;
    const logger = createLogger((l) => lines.push(l), 'info').with({ tf_rpc: 'ReadResource' });
    logger.log('debug', 'hidden', {
      get costly() {
        formatted++;
        return 'x';
      },
    });
    logger.log('warn', 'shown', { n: 1 });
    expect(formatted).toBe(0);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ '@level': 'warn', '@message': 'shown', tf_rpc: 'ReadResource', n: 1 }),
    ]);
    expect([logger.enabled('debug'), logger.enabled('error')]).toEqual([false, true]);
  });
});
