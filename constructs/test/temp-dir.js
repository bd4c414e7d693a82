// jest globalSetup / globalTeardown: cdktf's Testing.app() makes an output dir under os.tmpdir()
// for every app and never removes it. Point TMPDIR at one dir for the whole run (the workers
// inherit it) and remove that dir at the end, so a test run leaves nothing behind.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const KEY = 'PROXYACCOUNT_CONSTRUCTS_TEST_TMPDIR';

module.exports = {
  setup() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-constructs-test-'));
    process.env[KEY] = dir;
    process.env.TMPDIR = dir;
  },
  teardown() {
    const dir = process.env[KEY];
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  },
};
