import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { PROTOCOL_VERSIONS } from "../server";

const FIRST_MODERN_REVISION = "2026-07-28";
const MODERN_REVISIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS.filter((v) => v >= FIRST_MODERN_REVISION));
const LEGACY_REVISIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS.filter((v) => v < FIRST_MODERN_REVISION));

function envelopeRevision(message: unknown): string | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const claimed = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof claimed === "string" ? claimed : undefined;
}

/** Whether a message is for 2026-07-28 or later: its header says so, or its body carries the envelope. */
export function isModernMessage(message: unknown, protocolHeader: string | null): boolean {
  const header = protocolHeader?.trim();
  return (header !== undefined && MODERN_REVISIONS.has(header)) || envelopeRevision(message) !== undefined;
}

/**
 * A client can send a 2026-07-28 request, whose body carries the per-request
 * `_meta` envelope, while its MCP-Protocol-Version header still names the 2025
 * revision it would fall back to. The SDK refuses that (400, -32020: header and
 * body disagree) and such a client then falls back to `initialize`, with a
 * failed request in the log on every connect.
 *
 * The body is what the 2026-07-28 revision reads, so when the header names a
 * 2025 revision we serve and the body claims a 2026 revision we serve, the
 * header is brought in line with the body. Every other disagreement (a 2026
 * header with another body, an unknown revision, a wrong Mcp-Method) is still
 * refused by the SDK, as the 2026-07-28 transport requires.
 *
 * Works around @modelcontextprotocol/server 2.4.0's strict header check.
 * Proved necessary by test/mcp/protocol-2026.test.ts, "tolerates a 2025-11-25
 * header on a request whose body carries the 2026-07-28 envelope".
 */
export function toleratedHeaderMismatch(request: Request, message: unknown, body: string): Request {
  const header = request.headers.get("mcp-protocol-version")?.trim();
  if (header === undefined || !LEGACY_REVISIONS.has(header)) return request;
  const claimed = envelopeRevision(message);
  if (claimed === undefined || !MODERN_REVISIONS.has(claimed)) return request;
  const headers = new Headers(request.headers);
  headers.set("mcp-protocol-version", claimed);
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
}
