// The order Jest's workers take the test files in. Jest's own order puts the slowest first only
// for files whose duration it remembers from an earlier run (its cache); files it has not timed
// go by size. A fresh clone (every CI run) has timed nothing, and the size order left a 90-second
// end-to-end suite to start near the end, one worker busy with it while the other idled. So the
// files known to run long, the ones that drive real terraform, npm or many processes, go first
// among the untimed; files with a remembered duration keep Jest's order.
const Sequencer = require('@jest/test-sequencer').default;

/** Files that take 10 s or more (measured in CI logs): by directory, or by name. */
const LONG = [/\/test\/e2e\//, /\/test\/gitops\/ci-templates-run\.test\.ts$/, /\/test\/gitops\/pinned-install\.test\.ts$/, /\/test\/packages\//, /\/test\/release\/release\.test\.ts$/];

/** Whether a test file is known to run long. */
const isLong = (file) => LONG.some((re) => re.test(file.split('\\').join('/')));

class LongFirstSequencer extends Sequencer {
  sort(tests) {
    // Jest's order: what failed last time, then what it never timed (by size), then the rest by
    // duration; it sets `duration` on each test it has timed. Only the untimed are reordered.
    const ordered = super.sort(tests);
    const failed = ordered.filter((t) => this.hasFailed(t));
    const others = ordered.filter((t) => !this.hasFailed(t));
    const untimed = others.filter((t) => t.duration == null);
    return [
      ...failed,
      ...untimed.filter((t) => isLong(t.path)),
      ...untimed.filter((t) => !isLong(t.path)),
      ...others.filter((t) => t.duration != null),
    ];
  }
}

module.exports = LongFirstSequencer;
module.exports.isLong = isLong;
