// The file names of a registry-shaped provider release (what `npm run release` writes and what
// `provider install --from` and `provider mirror` read), in one place.

/** A provider's address: `HOST/NAMESPACE/TYPE`, as in `required_providers`. */
export interface ProviderAddress {
  readonly host: string;
  readonly namespace: string;
  readonly type: string;
}

/** The protocol versions the release's manifest declares (tfplugin6). */
export const PROTOCOL_VERSIONS = ['6.0'] as const;

/** The registry manifest that travels with a release: which plugin protocol the provider speaks. */
export function releaseManifest(): string {
  return `${JSON.stringify({ version: 1, metadata: { protocol_versions: [...PROTOCOL_VERSIONS] } }, null, 2)}\n`;
}

/** Terraform's platform names look like `linux_amd64`: an OS and an architecture. */
export const PLATFORM_PATTERN = /^[a-z0-9]+_[a-z0-9]+$/;

/** The names of a release's files for one provider type and version. */
export function releaseFileNames(type: string, version: string) {
  const base = `terraform-provider-${type}_${version}`;
  return {
    /** `terraform-provider-TYPE_VERSION_OS_ARCH.zip`: one per platform (also the packed mirror layout's name). */
    zip: (platform: string): string => `${base}_${platform}.zip`,
    /** The executable inside each zip: `terraform-provider-TYPE_vVERSION` (`.exe` on Windows). */
    executable: (platform: string): string => `terraform-provider-${type}_v${version}${platform.startsWith('windows_') ? '.exe' : ''}`,
    sums: `${base}_SHA256SUMS`,
    signature: `${base}_SHA256SUMS.sig`,
    manifest: `${base}_manifest.json`,
    /** Reads a platform back from a zip name of this release, or undefined. */
    platformOf(fileName: string): string | undefined {
      if (!fileName.startsWith(`${base}_`) || !fileName.endsWith('.zip')) return undefined;
      const platform = fileName.slice(base.length + 1, -'.zip'.length);
      return PLATFORM_PATTERN.test(platform) ? platform : undefined;
    },
  };
}
