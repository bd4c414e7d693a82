// NODE_EXTRA_CA_CERTS, deferred. Node 20 reads the variable before any JavaScript runs and parses
// its bundled root certificates and the named file at every start (about 50 ms on our CI machines),
// and Terraform starts the provider three times a plan. Only the process that contacts the API
// needs them, and none does when ca_cert_file replaces the default trust; so the executable's shell
// line (scripts/bundle-provider.js) hands the variable over under DEFERRED_EXTRA_CA_ENV, and this
// module gives the trust Node would have given (its bundled roots plus the file) when the
// provider's SDK client is made.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { pemCertificates } from '../util/x509';

/** Where the executable's shell line puts NODE_EXTRA_CA_CERTS. */
export const DEFERRED_EXTRA_CA_ENV = 'PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS';

/**
 * Takes the deferred file name out of `env` and puts NODE_EXTRA_CA_CERTS back as the user set it.
 * Returns the file, or undefined when Node loaded the certificates itself (nothing was deferred).
 */
export function takeDeferredExtraCa(env: NodeJS.ProcessEnv): string | undefined {
  const file = env[DEFERRED_EXTRA_CA_ENV];
  if (file === undefined) return undefined;
  delete env[DEFERRED_EXTRA_CA_ENV];
  if (file === '') return undefined;
  env.NODE_EXTRA_CA_CERTS = file;
  return file;
}

/** Node's default trust plus the deferred file's certificates, or why the file adds none. */
export type DeferredTrust = { readonly caCert: string } | { readonly ignored: string };

/**
 * The trust Node gives with NODE_EXTRA_CA_CERTS: the Mozilla roots it bundles plus the file's
 * certificates. Like Node, an unreadable file, or one without a certificate, leaves the bundled
 * roots alone in force; the reason comes back so the caller can warn as Node would have.
 */
export function deferredTrust(file: string): DeferredTrust {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ignored: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  const extra = pemCertificates(text).map((c) => c.pem);
  if (extra.length === 0) return { ignored: 'holds no PEM certificate' };
  return { caCert: [...rootCertificates, ...extra].join('\n') };
}
