// Registers cdktf's jest matchers (toHaveResourceWithProperties, toBeValidTerraform, ...).
const { Testing } = require('cdktf');

Testing.setupJest();
