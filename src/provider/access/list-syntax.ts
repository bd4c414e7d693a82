// Syntax of the entries of the hostname and proxy lists, as validators and as the matching
// rules that tell which declared entry a remote entry stands for.
import { validator, type Validator } from '../framework';

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/**
 * A label the resolver reads as a number: decimal (octal with a leading 0), or 0x and hex digits.
 * Every IPv4 form it accepts (`127.1`, `0x7f000001`, `127.0.0.0x1`) ends with one, and resolves
 * without asking DNS: a hostname ending so would authorize an address outside the IP list.
 */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;

/** True for a DNS host name: dot-separated labels of letters, digits and inner hyphens, not an IP in any form. */
export function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  const labels = s.split('.');
  return labels.every((l) => LABEL.test(l)) && !NUMERIC_LABEL.test(labels[labels.length - 1]!);
}

/**
 * `v` without the trailing dot of a fully qualified name (`office.example.com.`, also before a
 * port: `us-ny.proxy.example.net.:8080`), when it has one and `valid` accepts the rest; else undefined.
 */
function withoutTrailingDot(v: string, valid: (s: string) => boolean): string | undefined {
  const m = /^(.*[^.])\.(:[0-9]*)?$/.exec(v);
  const rest = m === null ? undefined : m[1]! + (m[2] ?? '');
  return rest !== undefined && valid(rest) ? rest : undefined;
}

/** What to write instead of a refused `v` that a trailing dot alone spoils, or '' (a clause to append). */
export function trailingDotAdvice(v: string, valid: (s: string) => boolean): string {
  const rest = withoutTrailingDot(v, valid);
  return rest === undefined ? '' : `: drop the trailing dot and write ${JSON.stringify(rest)}`;
}

/** A host name such as `app.example.com` (at most 253 characters). */
export function hostname(): Validator<string> {
  return validator('a host name such as app.example.com', (v) => {
    if (isHostname(v)) return undefined;
    // The numeric-label rule would only mislead about a name whose one fault is the dot.
    const advice = trailingDotAdvice(v, isHostname);
    if (advice !== '') return `must be a host name such as app.example.com, got ${JSON.stringify(v)}${advice}`;
    return `must be a host name such as app.example.com (letters, digits, inner hyphens and dots; not an IP address: a numeric last label such as 7 or 0x1f makes one), got ${JSON.stringify(v)}`;
  });
}

/** A proxy as the API accepts it: a parsed bare host, full domain or `domain:port`. */
export interface ProxyForm {
  /** The host or domain, lower-cased (DNS names are case-insensitive). */
  readonly name: string;
  /** The port, when given. */
  readonly port: number | undefined;
}

/** Parses `us-ny`, `us-ny.proxy.example.net` or `us-ny.proxy.example.net:8080`; undefined when malformed. */
export function parseProxy(s: string): ProxyForm | undefined {
  const m = /^([^:]+?)(?::([0-9]{1,5}))?$/.exec(s);
  if (m === null) return undefined;
  const name = m[1]!;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (!isHostname(name) || (port !== undefined && (port < 1 || port > 65535))) return undefined;
  // The API's <domain>:<port> form carries a full domain, never a bare host.
  if (port !== undefined && !name.includes('.')) return undefined;
  return { name: name.toLowerCase(), port };
}

/**
 * For a bare host given a port (`us-ny:8080`, which the API refuses: its `<domain>:<port>` form
 * carries a full domain), what to write instead, as a clause to append; '' for any other value.
 * The bare host alone is named only when `valid` accepts it.
 */
export function bareHostPortAdvice(v: string, valid: (s: string) => boolean): string {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?):([0-9]{1,5})$/.exec(v);
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65535) return '';
  const host = m[1]!;
  const alone = valid(host) ? `; or write the bare host alone, ${JSON.stringify(host)}` : '';
  // The port the account lists is not known here: the example carries none of its own.
  return `: a port needs the full domain, with the port the account lists it at (such as ${host}.proxy.example.net:<port>)${alone}`;
}

/** A proxy in one of the forms the API accepts. */
export function proxyForm(): Validator<string> {
  const valid = (s: string): boolean => parseProxy(s) !== undefined;
  return validator('a bare host, a full domain or <domain>:<port>', (v) => {
    if (v === '') return 'must not be empty';
    if (valid(v)) return undefined;
    const advice = trailingDotAdvice(v, valid) || bareHostPortAdvice(v, valid);
    return `must be a bare proxy host (us-ny), a full domain (us-ny.proxy.example.net) or <domain>:<port> (us-ny.proxy.example.net:8080), got ${JSON.stringify(v)}${advice}`;
  });
}

/**
 * The listed entry (`domain:port`) of the domain that the declared `domain:port` names, when the
 * account lists it at another port: the API refuses such a form ("wrong port"). Undefined for a
 * form without a port, or when the listing holds no entry of that domain (nothing to tell then).
 */
export function listedAtOtherPort(declared: string, listed: readonly string[]): string | undefined {
  const d = parseProxy(declared);
  if (d?.port === undefined) return undefined;
  return listed.find((entry) => {
    const r = parseProxy(entry);
    return r?.port !== undefined && r.name === d.name && r.port !== d.port;
  });
}

/** Why the API refuses the declared `domain:port`, which `listed` (its listing entry) shows at another port; names the forms to write. */
export function otherPortProblem(declared: string, listed: string): string {
  const colon = listed.lastIndexOf(':');
  const domain = listed.slice(0, colon);
  const bare = domain.split('.')[0]!;
  return (
    `${JSON.stringify(declared)} names ${domain}, which the account lists at port ${listed.slice(colon + 1)}, and the API refuses another port: ` +
    `write ${JSON.stringify(listed)}, or the proxy without a port (${JSON.stringify(domain)} or ${JSON.stringify(bare)}).`
  );
}

/**
 * True when the declared proxy `declared` stands for the listed `remote` (`domain:port`): the
 * same domain:port, the same full domain, or a bare host equal to the domain's first label.
 */
export function denotes(declared: string, remote: string): boolean {
  const d = parseProxy(declared);
  const r = parseProxy(remote) ?? { name: remote.toLowerCase(), port: undefined };
  if (d === undefined) return false;
  if (d.port !== undefined && r.port !== undefined && d.port !== r.port) return false;
  return d.name.includes('.') ? d.name === r.name : d.name === r.name.split('.')[0];
}
