// The client side of AutoMTLS: Terraform presents the certificate it put in PLUGIN_CLIENT_CERT,
// made for this run, and nothing else may talk to the provider. go-plugin trusts that certificate
// as the only CA; we compare it byte for byte instead. That is at least as strict (only that very
// certificate, not any other it could sign), and it spares each start about 40 ms: given any CA,
// Node 20 first builds its whole bundled root store (about 140 certificates parsed) just to tell
// the two stores apart, and the server is made before the handshake line, three times a plan
// (bench/RESULTS.md). TLS itself still proves the client holds the certificate's key (its
// CertificateVerify is checked whatever the chain check says).
import type { X509Certificate } from 'node:crypto';
import { pemCertificates } from '../util/x509';

/** The DER bytes of every certificate in PEM text; throws when there is none. */
export function pinnedCertificates(pem: string): Buffer[] {
  const ders = pemCertificates(pem).map((c) => c.der);
  if (ders.length === 0) throw new Error('PLUGIN_CLIENT_CERT holds no PEM certificate');
  return ders;
}

/**
 * Why a client may not talk to the provider (undefined: it may): it must have presented one of
 * the pinned certificates, within that certificate's validity period.
 */
export function clientCertificateProblem(peer: X509Certificate | undefined, pins: readonly Buffer[], now = Date.now()): string | undefined {
  if (peer === undefined) return 'no client certificate';
  if (!pins.some((pin) => pin.equals(peer.raw))) return 'not the certificate from PLUGIN_CLIENT_CERT';
  if (now < Date.parse(peer.validFrom) || now > Date.parse(peer.validTo)) return `outside its validity (${peer.validFrom} to ${peer.validTo})`;
  return undefined;
}
