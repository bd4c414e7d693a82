// go-plugin's start-up contract, as pure functions: what the environment must say before we serve,
// and the one line on stdout that tells Terraform where and how to connect.

/** Environment variable and value that prove Terraform (go-plugin) started us. */
export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
/** The value Terraform sets for {@link MAGIC_COOKIE_KEY}. */
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
/** go-plugin's own protocol version (first field of the handshake line). */
export const CORE_PROTOCOL_VERSION = 1;
/** The Terraform plugin protocol major version we speak. */
export const PLUGIN_PROTOCOL_VERSION = 6;

/** Outcome of {@link checkHandshakeEnv}. */
export type HandshakeCheck = { readonly ok: true; readonly clientCertPem?: string } | { readonly ok: false; readonly message: string };

/**
 * Checks what go-plugin puts in the environment: the magic cookie, the protocol versions Terraform
 * accepts (PLUGIN_PROTOCOL_VERSIONS, when set) and the AutoMTLS client certificate.
 * @param providerName for the message shown to someone who runs the binary by hand
 */
export function checkHandshakeEnv(env: NodeJS.ProcessEnv, providerName = 'proxyaccount'): HandshakeCheck {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    return {
      ok: false,
      message:
        `This binary is a plugin for Terraform: the ${providerName} provider.\n` +
        'It is not meant to be run directly. Terraform starts it when a configuration uses the provider;\n' +
        'install it where Terraform finds providers (a filesystem mirror or dev_overrides, see the README)\n' +
        'and run terraform init / plan / apply instead.',
    };
  }
  const versions = env.PLUGIN_PROTOCOL_VERSIONS;
  if (versions !== undefined && versions.trim() !== '') {
    const offered = versions.split(',').map((v) => Number(v.trim()));
    if (!offered.includes(PLUGIN_PROTOCOL_VERSION)) {
      return {
        ok: false,
        message:
          `The ${providerName} provider speaks plugin protocol ${PLUGIN_PROTOCOL_VERSION}, ` +
          `but this Terraform offers only ${versions}. Use Terraform 1.0 or later (or OpenTofu).`,
      };
    }
  }
  const cert = env.PLUGIN_CLIENT_CERT;
  return cert && cert.trim() !== '' ? { ok: true, clientCertPem: cert } : { ok: true };
}

/**
 * The handshake line (without newline): `1|6|unix|/PATH/plugin.sock|grpc|CERT` or
 * `1|6|tcp|127.0.0.1:PORT|grpc|CERT`, CERT being the server certificate's DER in base64 without
 * padding (empty when not using TLS). go-plugin's client takes either network.
 */
export function formatHandshakeLine(network: 'unix' | 'tcp', address: string, serverCertDer?: Uint8Array): string {
  if (address.includes('|') || address.includes('\n')) throw new Error(`cannot put ${JSON.stringify(address)} in a handshake line`);
  const cert = serverCertDer ? Buffer.from(serverCertDer).toString('base64').replace(/=+$/, '') : '';
  return `${CORE_PROTOCOL_VERSION}|${PLUGIN_PROTOCOL_VERSION}|${network}|${address}|grpc|${cert}`;
}
