// Registry-shaped provider releases: file names, SHA256SUMS, zip hashes and mirror layouts.
// Knows no Terraform protocol and no account API; used by the CLI and by scripts/release.js.
export { formatSha256Sums, parseSha256Sums, sha256File } from './checksums';
export {
  type InstallUnpackedOptions,
  installPackedMirror,
  installUnpacked,
  type NetworkMirrorResult,
  type NetworkMirrorVersion,
  writeNetworkMirror,
} from './mirror';
export { checkAncestors, ownersChecked, type PrivateTreeUse, removeStaleTemps, walkPrivateTree, writeOwnFile } from './private-tree';
export { PLATFORM_PATTERN, PROTOCOL_VERSIONS, type ProviderAddress, releaseFileNames, releaseManifest } from './names';
export { type OpenReleaseOptions, openRelease, type ReleaseArchive, type VerifiedRelease } from './release-dir';
export { hash1, listZipEntries, packageEntriesProblem, readZipEntries, readZipFiles, type ZipEntryInfo, type ZipListing, zipHash1 } from './zip';
