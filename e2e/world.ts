import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { type DevServer, startDevServer } from "../scripts/lib/dev-server.ts";
import { connect } from "../scripts/lib/mcp.ts";
import { launchBrowser } from "./browser.ts";

export interface E2eWorld {
  readonly server: DevServer;
  /** An MCP client with acme's token: the agent's side. */
  readonly client: Client;
  readonly browser: Browser;
}

/** A fresh `wrangler dev` (with these `--var`s), an agent connected to it and a browser, for the tests of one file. */
export function useWorld(vars: Readonly<Record<string, string>> = {}): () => E2eWorld {
  let world: E2eWorld | undefined;
  beforeAll(async () => {
    const server = await startDevServer({ quiet: true, vars });
    world = { server, client: await connect(server.url, "acme-dev-token"), browser: await launchBrowser() };
  });
  afterAll(async () => {
    await world?.browser.close();
    await world?.client.close();
    await world?.server.stop();
  });
  return () => {
    if (!world) throw new Error("the e2e world is not set up yet");
    return world;
  };
}
