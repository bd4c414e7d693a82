// Jest setup: tests never read or write the user's real memory of rejected credentials
// (~/.cache/proxyaccount/auth-failures.json). Many tests answer 401 on purpose and then use the
// same credentials against the same mock origin; a memory shared across tests and runs would make
// them depend on each other. Tests of the memory itself pass `authFailureCache` explicitly, which
// wins over this variable; terraform and the provider started by e2e tests inherit it.
process.env.PROXYACCOUNT_AUTH_FAILURE_CACHE = 'off';
