// What the provider's bundle gets for `require('undici')` (scripts/bundle-provider.js): the three
// things the SDK's transport uses, an Agent, its connector (buildConnector, which the SDK's spare
// connections wrap) and request() through an explicit dispatcher, taken from undici's own modules. undici's index also evaluates fetch, WebSocket, EventSource, the
// cache and mock code, and reads globalThis.Headers, which makes Node load its own copy of undici
// as well; in the provider none of that is ever called, and loading it cost the serving process
// about a tenth of its CPU per plan (bench/RESULTS.md, "Provider process cost"). The SDK package
// itself still uses the whole undici.
'use strict';
const Agent = require('undici/lib/dispatcher/agent.js');
const buildConnector = require('undici/lib/core/connect.js');
const dispatcherRequest = require('undici/lib/api/api-request.js');

/** undici's request(url, opts) for the case the SDK uses: `opts.dispatcher` and `opts.method` given. */
function request(url, opts) {
  if (opts?.dispatcher === undefined || typeof opts.method !== 'string') {
    throw new TypeError('the provider bundle only supports undici.request(url, { dispatcher, method, ... })');
  }
  const { dispatcher, ...rest } = opts;
  const u = new URL(url);
  return dispatcherRequest.call(dispatcher, { ...rest, origin: u.origin, path: `${u.pathname}${u.search}` });
}

/** The SDK's proxyDispatcher() is exported beside the client but has no use inside the provider. */
class ProxyAgent {
  constructor() {
    throw new Error('undici ProxyAgent is not part of the provider bundle (scripts/provider-undici.js)');
  }
}

module.exports = { Agent, ProxyAgent, buildConnector, request };
