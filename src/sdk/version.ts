// Kept as a constant (not read from package.json) so the SDK does no file I/O at load time and
// bundles cleanly; a unit test checks it against package.json.
/** The SDK's version, used in the default `User-Agent`. */
export const SDK_VERSION = '0.1.0';
