// The shape of the generated method tables (gen/*.ts): each gRPC method's path and the codecs of
// its messages, which the unary server (h2-server.ts) routes by. No .proto text is parsed and
// no protobuf library is loaded at run time.

/** The encode/decode pair the generator emits for each message. */
export interface MessageCodec<T, I> {
  encode(m: I): Buffer;
  decode(buf: Uint8Array): T;
}

/** One entry of a generated service table. */
export interface GeneratedMethod {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  // Each generated codec is typed for its own message; `never` input accepts all of them.
  readonly request: MessageCodec<unknown, never>;
  readonly response: MessageCodec<unknown, never>;
}
