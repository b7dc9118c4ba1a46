// `npm run smoke`: starts `wrangler dev` on a free port and drives every tool
// and resource over real HTTP with the official MCP clients, the way Claude
// Code or Codex would: the v1 SDK at protocol 2025-11-25 and the v2 SDK at
// 2026-07-28. A second `wrangler dev`, with ORDER_API_URL aimed at a tiny order
// API on this machine, checks the URL target; a third, whose intake API stalls
// on purpose, checks that a load test's latency shows the stall; a fourth, aimed
// at a reference order API with a known schedule, checks a run's figures against
// the truth from that API's log. The first delivers its webhooks to a tiny
// receiver here, which checks their signatures.
// Prints one line per check; exits non-zero on any failure.
import { startDevServer } from "./lib/dev-server.ts";
import { callTool, connect, connectModern, timeProgress } from "./lib/mcp.ts";
import { operatorStory } from "./lib/smoke-operator-story.ts";
import { checkHonestLatency, startStallingServer, trafficRun } from "./lib/smoke-runs.ts";
import { checkTruth, startTruthStack } from "./lib/smoke-truth.ts";
import { checkUrlTarget, startUrlTargetStack } from "./lib/smoke-url-target.ts";
import { checkWebhooks, startWebhookSink } from "./lib/smoke-webhooks.ts";

const ACME = "acme-dev-token";
const GLOBEX = "globex-dev-token";

let failures = 0;
function check(label: string, condition: boolean, detail = ""): void {
  if (!condition) failures++;
  console.log(`${condition ? "ok  " : "FAIL"} ${label}${detail ? `  ${detail}` : ""}`);
}

async function run(baseUrl: string): Promise<void> {
  const health = await (await fetch(`${baseUrl}/health`)).json();
  check("GET /health", JSON.stringify(health) === '{"status":"ok","skus":8,"customers":5}', JSON.stringify(health));

  const anonymous = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const challenge = anonymous.headers.get("www-authenticate") ?? "";
  check("POST /mcp without a token is 401", anonymous.status === 401 && challenge.startsWith("Bearer"));
  // What claude.ai and ChatGPT follow: the challenge, the resource metadata, the server metadata.
  const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
  check(
    "the 401 names the OAuth resource metadata",
    resourceMetadataUrl === `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
    challenge,
  );
  const resource = (await (
    await fetch(resourceMetadataUrl || `${baseUrl}/.well-known/oauth-protected-resource/mcp`)
  ).json()) as { resource?: string; authorization_servers?: string[] };
  check(
    "resource metadata names /mcp and this server",
    resource.resource === `${baseUrl}/mcp` && resource.authorization_servers?.[0] === baseUrl,
    JSON.stringify(resource),
  );
  const server = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  check(
    "server metadata: S256 PKCE, CIMD, public clients, registration",
    JSON.stringify(server.code_challenge_methods_supported) === '["S256"]' &&
      server.client_id_metadata_document_supported === true &&
      (server.token_endpoint_auth_methods_supported as string[] | undefined)?.includes("none") === true &&
      server.registration_endpoint === `${baseUrl}/oauth/register`,
  );

  const acme = await connect(baseUrl, ACME);
  const globex = await connect(baseUrl, GLOBEX);
  try {
    const tools = (await acme.listTools()).tools;
    console.log(`     tools: ${tools.map((t) => t.name).join(", ")}`);
    const expectedTools = [
      "check_target",
      "preview_order",
      "send_orders",
      "start_traffic_run",
      "get_traffic_run",
      "stop_traffic_run",
      "list_order_exceptions",
      "propose_resolution",
      "confirm_resolution",
    ];
    for (const expected of expectedTools) {
      check(
        `tool ${expected} is listed`,
        tools.some((t) => t.name === expected),
      );
    }
    const prompts = (await acme.listPrompts()).prompts.map((p) => p.name);
    check(
      "the workflow prompts are listed (slash commands)",
      ["triage_exceptions", "explain_order", "propose_and_wait", "load_test", "rejection_drill"].every((name) =>
        prompts.includes(name),
      ),
      prompts.join(", "),
    );
    const urlish = tools
      .flatMap((t) => Object.keys((t.inputSchema.properties ?? {}) as object))
      .filter((p) => /url|host|target|endpoint/i.test(p));
    check("no tool takes a URL, host or target", urlish.length === 0, urlish.join(","));

    const target = await callTool(acme, "check_target");
    check(
      "check_target reaches the order API",
      target.structured?.reachable === true && target.structured?.skus === 8,
      target.text,
    );

    const first = await callTool(acme, "preview_order", { seed: 1337 });
    const again = await callTool(acme, "preview_order", { seed: 1337 });
    check("preview_order is deterministic for seed 1337", first.text === again.text && !first.isError);
    console.log(`     preview: ${first.text.slice(0, 160)}...`);

    const seed = Math.floor(Math.random() * 1_000_000);
    const sent = await callTool(acme, "send_orders", { count: 5, seed });
    check(
      "send_orders seeded: 5 accepted",
      sent.structured?.accepted === 5 && sent.structured?.rejected === 0,
      sent.text,
    );
    const replay = await callTool(acme, "send_orders", { count: 5, seed });
    check(
      "replaying the seed gives the same accepted_total_cents",
      replay.structured?.accepted_total_cents === sent.structured?.accepted_total_cents &&
        JSON.stringify(replay.structured?.status_counts) === '{"200":5}',
      replay.text,
    );

    const simple = await callTool(acme, "send_orders", { count: 3, mode: "simple", seed: 1337 });
    const samples = (simple.structured?.sample_failures ?? []) as string[];
    check(
      "send_orders simple: 3 rejected with reasons",
      simple.structured?.rejected === 3 && samples.every((s) => /^422 unknown customer C-\d{4}; /.test(s)),
      simple.text,
    );

    const tooMany = await callTool(acme, "send_orders", { count: 500 });
    check(
      "count 500 is refused with the MAX_BATCH message",
      tooMany.isError &&
        tooMany.text ===
          "count 500 exceeds the server's MAX_BATCH of 100; send smaller batches or raise MAX_BATCH in the server environment",
      tooMany.text,
    );
    const zero = await callTool(acme, "send_orders", { count: 0 });
    check("count 0 is refused", zero.isError && zero.text === "count must be at least 1, got 0", zero.text);

    const catalog = await acme.readResource({ uri: "synthetic://catalog" });
    const catalogText = catalog.contents[0] && "text" in catalog.contents[0] ? String(catalog.contents[0].text) : "";
    check(
      "synthetic://catalog lists the sellable SKUs",
      (JSON.parse(catalogText) as { skus: unknown[] }).skus.length === 7,
    );

    const acmeBatches = await acme.readResource({ uri: "synthetic://batches" });
    const globexBatches = await globex.readResource({ uri: "synthetic://batches" });
    const acmeText =
      acmeBatches.contents[0] && "text" in acmeBatches.contents[0] ? String(acmeBatches.contents[0].text) : "";
    const globexText =
      globexBatches.contents[0] && "text" in globexBatches.contents[0] ? String(globexBatches.contents[0].text) : "";
    check(
      "acme's batch history has its batch; globex's does not",
      acmeText.includes(`"seed": ${seed}`) && !globexText.includes(`"seed": ${seed}`),
    );

    await trafficRun(acme, globex, check);
    await appCards(acme, "2025-11-25");
    await operatorStory(baseUrl, acme, globex, check);
    await newestProtocol(
      baseUrl,
      tools
        .map((t) => t.name)
        .sort()
        .join(","),
    );
    await progressStreams(baseUrl);
  } finally {
    await acme.close();
    await globex.close();
  }
}

/** The same server through the v2 client pinned to 2026-07-28: server/discover, then stateless requests. */
async function newestProtocol(baseUrl: string, legacyTools: string): Promise<void> {
  const modern = await connectModern(baseUrl, ACME);
  try {
    check(
      "the v2 client negotiates protocol 2026-07-28",
      modern.getNegotiatedProtocolVersion() === "2026-07-28",
      String(modern.getNegotiatedProtocolVersion()),
    );
    const tools = (await modern.listTools()).tools
      .map((t) => t.name)
      .sort()
      .join(",");
    check("2026-07-28 lists the same tools as 2025-11-25", tools === legacyTools);
    await appCards(modern, "2026-07-28");
    const target = await callTool(modern, "check_target");
    check("check_target at 2026-07-28", target.structured?.reachable === true, target.text);
    const seed = Math.floor(Math.random() * 1_000_000);
    const sent = await callTool(modern, "send_orders", { count: 2, seed });
    check("send_orders at 2026-07-28: 2 accepted", sent.structured?.accepted === 2, sent.text);
  } finally {
    await modern.close();
  }
}

/** Either generation's client, as far as the MCP Apps checks need it. */
interface CardReader {
  listTools(): Promise<{
    tools: { name: string; _meta?: Record<string, unknown>; outputSchema?: { [key: string]: unknown } }[];
  }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: ReadonlyArray<{ mimeType?: string; text?: string } | { mimeType?: string; blob: string }> }>;
}

/** MCP Apps: the operations tools name ui:// cards, and each card reads as self-contained HTML. */
async function appCards(client: CardReader, protocol: string): Promise<void> {
  const tools = (await client.listTools()).tools;
  const named = tools.flatMap((t) => {
    const uri = (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    return uri === undefined ? [] : [[t.name, uri] as const];
  });
  // The queue and the order have their cards, and so does every tool that answers a proposal, whatever the change
  // kinds.
  const expected = [
    "list_order_exceptions",
    "get_order_details",
    ...tools
      .filter((t) => (t.outputSchema?.properties as Record<string, unknown> | undefined)?.proposal_id !== undefined)
      .map((t) => t.name),
  ].sort();
  const actual = named.map(([name]) => name).sort();
  check(
    `${protocol}: the queue, order and proposal tools name their cards`,
    expected.length >= 8 && JSON.stringify(actual) === JSON.stringify(expected),
    actual.join(", "),
  );
  for (const uri of new Set(named.map(([, uri]) => uri))) {
    const [content] = (await client.readResource({ uri })).contents;
    const html = content && "text" in content ? String(content.text) : "";
    check(
      `${protocol}: ${uri} is an MCP Apps HTML card with no external URL`,
      content?.mimeType === "text/html;profile=mcp-app" &&
        html.startsWith("<!DOCTYPE html>") &&
        !/https?:\/\//.test(html),
      `${html.length} bytes`,
    );
  }
}

/**
 * send_orders with a progress token: the first progress event must reach the
 * client while the batch still runs (not in one chunk with the result),
 * through the Worker -> Durable Object hop, at both revisions.
 */
async function progressStreams(baseUrl: string): Promise<void> {
  for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
    const timing = await timeProgress(baseUrl, ACME, protocol, 100, Math.floor(Math.random() * 1_000_000));
    const first = timing.firstProgressMs ?? Number.NaN;
    const result = timing.resultMs ?? Number.NaN;
    check(
      `progress streams at ${protocol}: 20 events, the first well before the result`,
      timing.contentType.startsWith("text/event-stream") && timing.progressEvents === 20 && first < result * 0.6,
      `first progress after ${first.toFixed(0)} ms, result after ${result.toFixed(0)} ms`,
    );
  }
}

// The second server, aimed at a second order API by ORDER_API_URL, the third, whose intake API
// stalls on purpose, and the fourth, aimed at the reference order API, start alongside the first,
// which delivers its webhooks to a local receiver.
const webhooks = await startWebhookSink();
const starting = [
  startDevServer({ vars: webhooks.vars }),
  startUrlTargetStack(),
  startStallingServer(),
  startTruthStack(),
] as const;
const [server, urlTarget, stalling, truth] = await Promise.all(starting).catch(async (error: unknown) => {
  await Promise.allSettled([...starting.map(async (started) => (await started).stop()), webhooks.receiver.close()]);
  throw error;
});
try {
  await run(server.url);
  await checkWebhooks(webhooks, check);
  await checkUrlTarget(urlTarget, check);
  await checkHonestLatency(stalling, check);
  await checkTruth(truth, check);
} catch (error) {
  failures++;
  console.log(`FAIL smoke run crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await Promise.all([server.stop(), urlTarget.stop(), stalling.stop(), truth.stop(), webhooks.receiver.close()]);
}
console.log(failures === 0 ? "smoke: all checks passed" : `smoke: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
