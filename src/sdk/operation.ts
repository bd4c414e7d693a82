// One API call, as the per-area modules (ips.ts, tokens.ts, …) describe it to the transport.
/** One API call: its request, whether it may be sent again, and how its answer is read. */
export interface Operation<T> {
  /** HTTP method. */
  readonly method: 'GET' | 'POST';
  /** API path exactly as in the API contract, with its trailing slash. */
  readonly path: string;
  /** Human description naming the object, e.g. `create sub-account 'alice'`. */
  readonly operation: string;
  /** Query parameters (GET); undefined values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Form fields (POST); undefined values are left out, '' is sent as an empty field. */
  readonly form?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether sending the call twice leaves the same state and answer as sending it once, so it may
   * be retried after the request may have reached the server (a 5xx but 501 and 505, reset, timeout).
   */
  readonly repeatable: boolean;
  /** Extra secrets of this call (e.g. a sub-account password) to mask in error text. */
  readonly secrets?: readonly string[];
  /** Reads the JSON body of a success; absent = the body is ignored and the call returns void. */
  readonly parse?: (body: unknown) => T;
  /** Sent only while no answer has proved the credentials; otherwise the call resolves unsent. */
  readonly onlyToProveCredentials?: boolean;
}
