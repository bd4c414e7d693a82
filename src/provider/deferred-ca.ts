// Node's CA certificates, deferred. Node 20 reads NODE_EXTRA_CA_CERTS before any JavaScript runs and
// parses its bundled root certificates and the named file at every start (about 50 ms on our CI
// machines), and Terraform starts the provider three times a plan. Node also parses its bundled
// roots (about 45 ms) the first time any secure context is given a CA, ca_cert_file's included,
// only to tell that context's store from its default one. Only the process that contacts the API
// needs certificates, so the executable's shell line (scripts/bundle-provider.js) keeps both from
// Node:
// - NODE_EXTRA_CA_CERTS is handed over under DEFERRED_EXTRA_CA_ENV;
// - Node runs with OpenSSL's store as its default (--use-openssl-ca) and that store made empty
//   (SSL_CERT_FILE and SSL_CERT_DIR name nothing), which costs nothing to build; DEFERRED_ROOTS_ENV
//   says so.
// This module gives the API client the trust Node would have given (its bundled roots, plus the
// extra file) when the provider configures it. Nothing else in the provider makes TLS connections
// with a default trust, and an empty default store can only refuse a certificate, never accept one.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { pemCertificates } from '../util/x509';

/** Where the executable's shell line puts NODE_EXTRA_CA_CERTS. */
export const DEFERRED_EXTRA_CA_ENV = 'PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS';
/** Set to 1 by the executable's shell line when Node's default certificate store is empty. */
export const DEFERRED_ROOTS_ENV = 'PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS';

/** What the executable's shell line kept from Node. */
export interface DeferredCa {
  /** The NODE_EXTRA_CA_CERTS file Node did not load. @default none */
  readonly extraCaFile?: string;
  /** Node's default store is empty: the API client must be given Node's bundled roots itself. */
  readonly bundledRoots: boolean;
}

/**
 * Takes what the shell line deferred out of `env`, and puts NODE_EXTRA_CA_CERTS back as the user
 * set it. Returns undefined when nothing was deferred (Node's default trust is in force).
 */
export function takeDeferredCa(env: NodeJS.ProcessEnv): DeferredCa | undefined {
  const file = env[DEFERRED_EXTRA_CA_ENV];
  const bundledRoots = env[DEFERRED_ROOTS_ENV] === '1';
  delete env[DEFERRED_EXTRA_CA_ENV];
  delete env[DEFERRED_ROOTS_ENV];
  if (file !== undefined && file !== '') env.NODE_EXTRA_CA_CERTS = file;
  const extraCaFile = file === '' ? undefined : file;
  if (extraCaFile === undefined && !bundledRoots) return undefined;
  return extraCaFile === undefined ? { bundledRoots } : { extraCaFile, bundledRoots };
}

/**
 * The trust the API client is given, and why the extra file adds nothing when it does not: Node
 * warns at start-up then, so the caller warns too.
 */
export interface DeferredTrust {
  /** PEM certificates to trust; undefined leaves Node's default trust in force. */
  readonly caCert?: string;
  /** Why the NODE_EXTRA_CA_CERTS file adds no certificate. */
  readonly ignored?: string;
}

/**
 * The trust Node gives by default: the Mozilla roots it bundles, plus the certificates of the
 * NODE_EXTRA_CA_CERTS file. Like Node, an unreadable file, or one without a certificate, leaves the
 * bundled roots alone in force.
 */
export function deferredTrust({ extraCaFile, bundledRoots }: DeferredCa): DeferredTrust {
  const roots = bundledRoots ? { caCert: rootCertificates.join('\n') } : {};
  if (extraCaFile === undefined) return roots;
  let text: string;
  try {
    text = readFileSync(extraCaFile, 'utf8');
  } catch (err) {
    return { ...roots, ignored: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  const extra = pemCertificates(text).map((c) => c.pem);
  if (extra.length === 0) return { ...roots, ignored: 'holds no PEM certificate' };
  return { caCert: [...rootCertificates, ...extra].join('\n') };
}
