// A server of the emulator could not listen on the port it was given (the CLI names the flag).
/** A port the emulator was asked to listen on is taken by another process. */
export class PortInUseError extends Error {
  /**
   * @param server which server could not listen: the HTTPS API, the plain-HTTP redirect or a proxy host's
   * @param host the proxy host, for a proxy's
   */
  constructor(
    readonly port: number,
    readonly server: 'https' | 'http' | 'proxy',
    readonly host?: string,
  ) {
    super(`port ${port} is in use`);
    this.name = 'PortInUseError';
  }
}
