import { beforeAll, describe, expect, it } from "vitest";
import { sessionFor } from "../helpers/approval-pages";
import { workerFetch } from "../helpers/mcp-client";
import { ENVELOPE_2026, mcpHeaders } from "../helpers/mcp-raw";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Nothing answers 500 on bad input. Two shapes of bug make one: a lookup
// keyed by input (a name such as "constructor" or "__proto__" finds an
// Object.prototype member in a plain object) and a transform that throws on
// a value its pattern let through. So every route gets every method, every
// kind of credential, Object.prototype's names as path parameters, query
// keys and values, and bodies that carry them; and /mcp gets them as method
// names, tool names, URIs and params at every protocol revision.

const NAMES = Object.getOwnPropertyNames(Object.prototype);
const BASE = "http://localhost";
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

const STATIC_ROUTES = [
  "/health",
  "/api/health",
  "/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/oauth/token",
  "/oauth/register",
  "/oauth/grants",
  "/authorize",
  "/approvals",
  "/approvals/sign-in",
  "/approvals/sign-out",
  "/approvals/audit",
  "/api/approvals",
  "/api/audit",
  "/api/orders",
];
const PARAM_ROUTES = [
  "/oauth/grants/:id",
  "/approvals/:id",
  "/approvals/:id/decision",
  "/api/approvals/:id",
  "/api/orders/:id",
  "/runs/:id",
  "/:id",
];

/** The query fields the routes read, each given a name from Object.prototype or an instant no clock shows. */
const KNOWN_FIELDS = [
  "from",
  "to",
  "format",
  "order_id",
  "next",
  "client_id",
  "response_type",
  "redirect_uri",
  "scope",
  "state",
  "resource",
  "code_challenge",
  "code_challenge_method",
];
const BAD_INSTANTS = [
  "2026-12-03T00:00:00+99:00",
  "2026-12-03T00:00:00+24:00",
  "2026-12-03T00:00:00-30:00",
  "9999-99-99",
];

function fuzzQuery(i: number): string {
  const query = new URLSearchParams();
  for (const name of NAMES) query.append(name, NAMES[(i + 1) % NAMES.length] ?? name);
  for (const [j, field] of KNOWN_FIELDS.entries()) {
    query.append(field, j < 2 ? (BAD_INSTANTS[i % BAD_INSTANTS.length] ?? "") : (NAMES[(i + j) % NAMES.length] ?? ""));
  }
  return query.toString();
}

const prototypeKeyed = () => Object.fromEntries(NAMES.map((name) => [name, { [name]: name }]));
const BODIES: ReadonlyArray<{ type: string; body: string }> = [
  {
    type: "application/json",
    body: JSON.stringify(prototypeKeyed()).replace(
      '"__proto__":{"__proto__":"__proto__"}',
      '"__proto__":{"__proto__":"__proto__","polluted":true}',
    ),
  },
  { type: "application/json", body: JSON.stringify(NAMES) },
  { type: "application/json", body: '"__proto__"' },
  { type: "application/json", body: '{"__proto__":' },
  {
    type: "application/x-www-form-urlencoded",
    body: new URLSearchParams(NAMES.map((name) => [name, name])).toString(),
  },
  { type: "text/plain", body: "" },
];

interface Credential {
  readonly name: string;
  readonly headers: Record<string, string>;
}

async function credentials(): Promise<Credential[]> {
  return [
    { name: "none", headers: {} },
    { name: "mcp token", headers: { authorization: `Bearer ${ACME_TOKEN}` } },
    { name: "approver token", headers: { authorization: `Bearer ${ACME_APPROVER_TOKEN}` } },
    {
      name: "approver session",
      headers: { cookie: await sessionFor(ACME_APPROVER_TOKEN), origin: BASE, "sec-fetch-site": "same-origin" },
    },
  ];
}

interface Attempt {
  readonly label: string;
  readonly request: () => Request;
}

/**
 * Each surface's modules load on its first request; in this test runtime that
 * load is I/O of the request that started it, so the first request of each
 * surface goes alone, before requests run side by side.
 */
beforeAll(async () => {
  for (const path of [...STATIC_ROUTES, "/runs/R-1", "/no-such-route"])
    await (await workerFetch(`${BASE}${path}`)).body?.cancel();
});

/** Runs the attempts a few at a time and names every one answered with a 5xx (or not at all). */
async function serverErrors(attempts: readonly Attempt[]): Promise<string[]> {
  const failures: string[] = [];
  for (let start = 0; start < attempts.length; start += 8) {
    await Promise.all(
      attempts.slice(start, start + 8).map(async ({ label, request }) => {
        try {
          const response = await workerFetch(request());
          await response.body?.cancel();
          if (response.status >= 500) failures.push(`${response.status} ${label}`);
        } catch (error) {
          failures.push(`${String(error).slice(0, 80)}: ${label}`);
        }
      }),
    );
  }
  return failures;
}

function attempt(method: string, path: string, credential: Credential, i: number): Attempt {
  const body = BODIES[i % BODIES.length] ?? { type: "text/plain", body: "" };
  const carriesBody = method !== "GET" && method !== "OPTIONS";
  const url = `${BASE}${path}?${fuzzQuery(i)}`;
  return {
    label: `${method} ${path} (${credential.name}${carriesBody ? `, ${body.type} body ${i % BODIES.length}` : ""})`,
    request: () =>
      new Request(url, {
        method,
        redirect: "manual",
        headers: {
          ...credential.headers,
          ...(carriesBody ? { "content-type": body.type, accept: "application/json, text/event-stream" } : {}),
        },
        ...(carriesBody ? { body: body.body } : {}),
      }),
  };
}

describe("every route, every method, every credential", () => {
  it("static routes with Object.prototype names in the query and the body: no 5xx", { timeout: 120_000 }, async () => {
    const creds = await credentials();
    const attempts = STATIC_ROUTES.flatMap((path, r) =>
      METHODS.flatMap((method, m) => creds.map((credential, c) => attempt(method, path, credential, r + m + c))),
    );
    expect(await serverErrors(attempts)).toEqual([]);
  });

  it("routes with a path parameter, given each Object.prototype name: no 5xx", { timeout: 120_000 }, async () => {
    const creds = await credentials();
    const attempts = PARAM_ROUTES.flatMap((route) =>
      NAMES.flatMap((name, n) =>
        ["GET", "POST", "DELETE"].flatMap((method) =>
          creds.map((credential, c) =>
            attempt(method, route.replace(":id", encodeURIComponent(name)), credential, n + c),
          ),
        ),
      ),
    );
    expect(await serverErrors(attempts)).toEqual([]);
  });
});

const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
const KNOWN_METHODS = [
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
];

/** Params that are missing, of the wrong type, or keyed by Object.prototype's names. */
const SHAPELESS_PARAMS: readonly unknown[] = [
  undefined,
  null,
  NAMES,
  "__proto__",
  prototypeKeyed(),
  { name: "check_target", arguments: prototypeKeyed() },
];

/** Params that carry one of Object.prototype's names where a name, a URI or an argument goes. */
function namedParams(name: string): unknown[] {
  return [
    { name, uri: name, arguments: { [name]: name } },
    { ref: { type: "ref/prompt", name }, argument: { name, value: name } },
  ];
}

function rpcAttempt(revision: string, message: Record<string, unknown>): Attempt {
  const modern = revision === "2026-07-28";
  const params = message.params;
  const withEnvelope =
    modern && params !== null && typeof params === "object" && !Array.isArray(params)
      ? { ...message, params: { ...params, _meta: ENVELOPE_2026 } }
      : message;
  const method = typeof message.method === "string" ? message.method : "";
  const headers = {
    ...mcpHeaders({ token: ACME_TOKEN }),
    "mcp-protocol-version": revision,
    ...(modern ? { "mcp-method": method } : {}),
  };
  return {
    label: `${revision} ${JSON.stringify(message).slice(0, 120)}`,
    request: () => new Request(`${BASE}/mcp`, { method: "POST", headers, body: JSON.stringify(withEnvelope) }),
  };
}

describe("/mcp with Object.prototype's names", () => {
  it("as method names, with any params, at every revision: no 5xx", { timeout: 120_000 }, async () => {
    const attempts = REVISIONS.flatMap((revision) =>
      NAMES.flatMap((method, i) => [
        rpcAttempt(revision, { jsonrpc: "2.0", id: i, method }),
        rpcAttempt(revision, { jsonrpc: "2.0", id: i, method, params: prototypeKeyed() }),
      ]),
    );
    expect(await serverErrors(attempts)).toEqual([]);
  });

  it("as tool names, URIs, arguments and params of every method the server knows, at every revision: no 5xx", {
    timeout: 120_000,
  }, async () => {
    const attempts = REVISIONS.flatMap((revision) =>
      KNOWN_METHODS.flatMap((method, m) =>
        [...SHAPELESS_PARAMS, ...NAMES.flatMap(namedParams)].map((params, p) =>
          rpcAttempt(revision, { jsonrpc: "2.0", id: `${m}-${p}`, method, params }),
        ),
      ),
    );
    expect(await serverErrors(attempts)).toEqual([]);
  });

  it("in batches, and as ids: no 5xx", async () => {
    const batch = NAMES.map((name, i) => ({ jsonrpc: "2.0", id: i, method: name, params: { name } }));
    const attempts = [
      {
        label: "a batch of prototype methods",
        request: () =>
          new Request(`${BASE}/mcp`, {
            method: "POST",
            headers: mcpHeaders({ token: ACME_TOKEN }),
            body: JSON.stringify(batch),
          }),
      },
      ...NAMES.map((name) => rpcAttempt("2025-11-25", { jsonrpc: "2.0", id: { [name]: name }, method: "ping" })),
    ];
    expect(await serverErrors(attempts)).toEqual([]);
  });
});
