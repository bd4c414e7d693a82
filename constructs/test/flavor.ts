// Which build of the constructs a test run checks: `cdktf` (src/, against cdktf) or `cdktn` (the
// CDK Terrain build in cdktn/, against cdktn). jest.config.js runs every test file once for each.
import * as path from 'node:path';

export interface Flavor {
  /** The CDK library the build is compiled against, and what `cdktf` imports resolve to. */
  readonly lib: 'cdktf' | 'cdktn';
  /** The package's name on npm. */
  readonly packageName: string;
  /** The package directory: where its package.json, .jsii and src/gen are. */
  readonly dir: string;
}

const ROOT = path.join(__dirname, '..');

export const FLAVOR: Flavor = process.env.PROXYACCOUNT_CONSTRUCTS_FLAVOR === 'cdktn'
  ? { lib: 'cdktn', packageName: 'cdktn-provider-proxyaccount', dir: path.join(ROOT, 'cdktn') }
  : { lib: 'cdktf', packageName: 'cdktf-provider-proxyaccount', dir: ROOT };
