// Turns the generated method tables (gen/*.ts) into grpc-js service definitions, so grpc-js
// serialises with our generated code and never loads protobufjs or parses .proto text.
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';

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

/** A grpc-js ServiceDefinition (usable by servers and by clients) for a generated service table. */
export function grpcServiceDefinition(table: Readonly<Record<string, GeneratedMethod>>): ServiceDefinition {
  const def: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(table)) {
    def[name] = {
      path: m.path,
      requestStream: m.requestStream,
      responseStream: m.responseStream,
      requestSerialize: (v: unknown) => m.request.encode(v as never),
      requestDeserialize: (b: Buffer) => m.request.decode(b),
      responseSerialize: (v: unknown) => m.response.encode(v as never),
      responseDeserialize: (b: Buffer) => m.response.decode(b),
      originalName: name.charAt(0).toLowerCase() + name.slice(1),
    };
  }
  return def;
}
