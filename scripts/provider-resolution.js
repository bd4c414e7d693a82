// Where the provider bundle resolves a module differently from Node: read by the bundler
// (scripts/bundle-provider.js, its lean-undici plugin) and by the test that loads the API client
// from dist/ the way the bundle does (test/provider/main-provider.test.ts), so the two cannot differ.
'use strict';
const path = require('node:path');

/** What `require('undici')` in the SDK becomes (why: that file). */
const UNDICI_IN_BUNDLE = path.join(__dirname, 'provider-undici.js');

/**
 * Whether `importer`'s `require('node:http2')` is left out of the bundle: undici's HTTP/2 client
 * loads it when its module is evaluated, inside a try that falls back to an empty stand-in (for
 * Node builds without http2). The SDK never offers h2 (allowH2 is off), so the serving process need
 * not load node:http2 at all.
 */
function leavesOutHttp2(importer) {
  return importer.endsWith(path.join('undici', 'lib', 'dispatcher', 'client-h2.js'));
}

module.exports = { UNDICI_IN_BUNDLE, leavesOutHttp2 };
