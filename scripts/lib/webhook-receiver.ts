// A webhook receiver on this machine, for the tests and the smoke run to aim
// NOTIFY_WEBHOOK_URL and DOWNSTREAM_WEBHOOK_URL at instead of the internet.
// It verifies every delivery's signature with the standardwebhooks check
// docs/webhooks.md shows and deduplicates by
// webhook-id, as a real receiver should: a redelivery is recorded as a repeat
// of the same key and answered 200 without being taken again. The path says
// whose secret signs and how to answer:
//   POST /<secret name>/<behaviour>/<anything>
// where the behaviour is
//   ok           200
//   fail-once    500 to the first delivery of each key, then 200
//   always-500   500
//   gone         410
//   redirect     307 to another host
// A bad or missing signature is answered 401. GET /deliveries?under=<path
// prefix> lists what arrived there, in order.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { loadDocumentedVerifiers } from "./documented-verifier.ts";
import { answer, header, readBody } from "./node-http.ts";

export interface Delivery {
  readonly path: string;
  /** webhook-id: what a receiver deduplicates by. */
  readonly key: string | null;
  readonly event_type: string | null;
  /** webhook-timestamp and webhook-signature. */
  readonly timestamp: string | null;
  readonly signature: string | null;
  /** The documented standardwebhooks check accepted it under the path's secret. */
  readonly verified: boolean;
  /** Every request header, lowercased, as the receiver got them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The key had been taken before: this delivery is a redelivery. */
  readonly repeat: boolean;
  /** What the receiver answered. */
  readonly status: number;
  readonly body: unknown;
  readonly raw_body: string;
}

export interface WebhookReceiver {
  /** Its origin, like http://127.0.0.1:40123 */
  readonly url: string;
  readonly deliveries: readonly Delivery[];
  close(): Promise<void>;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `secrets` maps the first path segment to the secret that path's deliveries must be signed with. */
export async function startWebhookReceiver(secrets: Readonly<Record<string, string>>): Promise<WebhookReceiver> {
  const { verify } = await loadDocumentedVerifiers();
  const deliveries: Delivery[] = [];
  const taken = new Set<string>();
  const failedOnce = new Set<string>();

  async function receive(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const [secretName = "", behaviour = ""] = path.split("/").filter((part) => part !== "");
    const raw = await readBody(request);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(", ") : (value ?? ""),
      ]),
    );
    const key = header(request, "webhook-id");
    const secret = secrets[secretName];
    const verified = secret !== undefined && verify(secret, raw, headers);
    const repeat = key !== null && taken.has(key);
    const status = (() => {
      if (!verified) return 401;
      if (repeat) return 200;
      switch (behaviour) {
        case "ok":
          return 200;
        case "fail-once":
          if (key !== null && !failedOnce.has(key)) {
            failedOnce.add(key);
            return 500;
          }
          return 200;
        case "always-500":
          return 500;
        case "gone":
          return 410;
        case "redirect":
          return 307;
        default:
          return 404;
      }
    })();
    if (status === 200 && key !== null) taken.add(key);
    deliveries.push({
      path,
      key,
      event_type: header(request, "x-order-ops-event"),
      timestamp: header(request, "webhook-timestamp"),
      signature: header(request, "webhook-signature"),
      verified,
      headers,
      repeat,
      status,
      body: parsed(raw),
      raw_body: raw,
    });
    if (status === 307)
      return answer(response, 307, { message: "moved" }, { location: "https://elsewhere.example/hooks" });
    answer(
      response,
      status,
      status === 200
        ? { received: key, duplicate: repeat }
        : { error: `answered ${status} (${verified ? behaviour : "bad signature"})` },
    );
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (request.method === "GET" && url.pathname === "/deliveries") {
      const under = url.searchParams.get("under") ?? "/";
      return answer(
        response,
        200,
        deliveries.filter((delivery) => delivery.path.startsWith(under)),
      );
    }
    if (request.method === "POST") return receive(request, response, url.pathname);
    answer(response, 404, { error: `no route ${request.method} ${url.pathname}` });
  }

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
