// See temp-dir.js.
module.exports = require('./temp-dir').teardown;
