#!/usr/bin/env node
'use strict';
// The `proxyaccount` command. Built sources live in dist/ (`npm run build`).
require('../dist/cli/main.js').main(process.argv);
