// The environment every test file runs in: Jest's node environment, in a worker process that
// ends without tearing its heap down.
//
// A Jest worker that has run its share of the suites holds 600 MB to 1 GB. Told to end, it leaves
// its event loop and emits 'exit' within a millisecond, then tears that heap down before the
// process is gone: in full runs the parent saw it still running 500 ms later, Jest's grace period,
// killed it, and printed "A worker process has failed to exit gracefully and has been force
// exited... This is likely caused by tests leaking due to improper teardown" about a worker that
// had leaked nothing. process.exit() from 'beforeExit' (the event loop is empty: nothing is left to
// run) emits 'exit' to every listener, as a natural exit does, and ends the process without that
// teardown: measured, the worker is gone within 100 ms and Jest no longer warns.
const { TestEnvironment } = require('jest-environment-node');

let hooked = false;

class QuickExitEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // Once per worker process, however many test files it runs.
    if (!hooked) {
      hooked = true;
      process.once('beforeExit', (code) => process.exit(code));
    }
  }
}

module.exports = QuickExitEnvironment;
