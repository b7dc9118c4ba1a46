import { createRequestStateCodec, type RequestStateCodec } from "@modelcontextprotocol/server";

let codec: RequestStateCodec<Record<string, unknown>> | undefined;

/**
 * HMAC-protects the multi-round-trip state the conformance fixtures hand to
 * the client. The key is made on first use (workerd allows no randomness at
 * module load) and lives per isolate, which is enough for one local
 * development server; the fixtures never run in production.
 */
export function requestStates(): RequestStateCodec<Record<string, unknown>> {
  codec ??= createRequestStateCodec({ key: crypto.getRandomValues(new Uint8Array(32)) });
  return codec;
}
