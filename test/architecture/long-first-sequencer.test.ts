// The order Jest's workers take test files in (test/helpers/long-first-sequencer.js): on a fresh
// clone the long suites go first, so that no worker idles at the end of a CI run; what Jest has
// timed or seen fail keeps Jest's own order.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The sequencer is plain JavaScript, loaded by Jest itself.
const LongFirstSequencer = require('../helpers/long-first-sequencer.js') as new () => {
  sort(tests: FakeTest[]): FakeTest[];
  cacheResults(tests: FakeTest[], results: unknown): void;
};

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { cache: boolean; cacheDirectory: string; id: string; haste: object }; hasteFS: { getSize(p: string): number } };
}

let cacheDirectory: string;
beforeEach(() => {
  cacheDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'sequencer-'));
});
afterEach(() => fs.rmSync(cacheDirectory, { recursive: true, force: true }));

/** Fake tests of these files and sizes, sharing one context (one project). */
function tests(files: Record<string, number>): FakeTest[] {
  const context = { config: { cache: true, cacheDirectory, id: 'root', haste: {} }, hasteFS: { getSize: (p: string) => files[p] ?? 0 } };
  return Object.keys(files).map((p) => ({ path: p, context }));
}

/** Records an earlier run as Jest does at its end: whether each file failed, and how long it took (ms). */
function remember(runs: Record<string, { failed: boolean; ms: number }>): void {
  const sizes = Object.fromEntries(Object.keys(runs).map((p) => [p, 1]));
  const testResults = Object.entries(runs).map(([testFilePath, r]) => ({
    testFilePath,
    numFailingTests: r.failed ? 1 : 0,
    perfStats: { runtime: r.ms, start: 0, end: r.ms },
  }));
  new LongFirstSequencer().cacheResults(tests(sizes), { testResults });
}

it('puts the long suites first on a fresh clone, each group by size, whatever their sizes', () => {
  const order = new LongFirstSequencer()
    .sort(
      tests({
        '/r/test/sdk/big.test.ts': 900,
        '/r/test/e2e/small.test.ts': 10,
        '/r/test/gitops/ci-templates-run.test.ts': 50,
        '/r/test/gitops/ci-templates.test.ts': 800,
        '/r/test/e2e/large.test.ts': 100,
        '/r/test/packages/pack.test.ts': 20,
      }),
    )
    .map((t) => t.path);
  expect(order).toEqual([
    '/r/test/e2e/large.test.ts',
    '/r/test/gitops/ci-templates-run.test.ts',
    '/r/test/packages/pack.test.ts',
    '/r/test/e2e/small.test.ts',
    '/r/test/sdk/big.test.ts',
    '/r/test/gitops/ci-templates.test.ts',
  ]);
});

it('keeps Jest order for what it remembers: failed first, then the untimed, then the slowest first', () => {
  remember({
    '/r/test/sdk/slow.test.ts': { failed: false, ms: 40_000 },
    '/r/test/e2e/quick.test.ts': { failed: false, ms: 2_000 },
    '/r/test/sdk/broke.test.ts': { failed: true, ms: 100 },
  });
  const order = new LongFirstSequencer()
    .sort(
      tests({
        '/r/test/e2e/quick.test.ts': 100,
        '/r/test/sdk/slow.test.ts': 10,
        '/r/test/sdk/new.test.ts': 500,
        '/r/test/e2e/new.test.ts': 1,
        '/r/test/sdk/broke.test.ts': 1,
      }),
    )
    .map((t) => t.path);
  expect(order).toEqual([
    '/r/test/sdk/broke.test.ts',
    '/r/test/e2e/new.test.ts',
    '/r/test/sdk/new.test.ts',
    '/r/test/sdk/slow.test.ts',
    '/r/test/e2e/quick.test.ts',
  ]);
});
