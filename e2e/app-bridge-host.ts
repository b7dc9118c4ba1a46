/**
 * The card tests' second host: `AppBridge` from `@modelcontextprotocol/ext-apps`,
 * the host side that Apps hosts build on. It checks every message against the
 * spec's schemas, so a card that only agreed with our own small test host
 * (e2e/card-host.ts) on a wrong message would fail here.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { build } from "vite";
import { type CardCsp, hostCsp, type ToolResultForCard } from "./card-host.ts";

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), "app-bridge.entry.ts");

/** The bridge as one browser script (global `McpAppsHost`), bundled in memory with vite. */
export async function bundleAppBridge(): Promise<string> {
  const built = await build({
    root: path.dirname(ENTRY),
    configFile: false,
    logLevel: "silent",
    build: {
      write: false,
      minify: false,
      lib: { entry: ENTRY, formats: ["iife"], name: "McpAppsHost", fileName: () => "app-bridge.js" },
    },
  });
  const [first] = Array.isArray(built) ? built : [built];
  const chunk = first && "output" in first ? first.output[0] : undefined;
  if (chunk?.type !== "chunk") throw new Error("vite did not bundle the AppBridge");
  return chunk.code;
}

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>AppBridge host</title></head>
<body style="margin:16px"><iframe id="card-frame" sandbox="allow-scripts" style="width:400px;height:80px;border:0"></iframe></body></html>`;

/** Mounts a card behind an AppBridge and delivers the tool input and result once the card has initialized. */
export async function mountWithAppBridge(
  page: Page,
  bridgeScript: string,
  card: { readonly html: string; readonly csp: CardCsp },
  toolInput: Record<string, unknown>,
  toolResult: ToolResultForCard,
): Promise<void> {
  const html = card.html.replace(
    "<head>",
    `<head><meta http-equiv="Content-Security-Policy" content="${hostCsp(card.csp)}">`,
  );
  await page.setContent(PAGE);
  await page.addScriptTag({ content: bridgeScript });
  await page.evaluate(
    async ([doc, input, result]) => {
      const host = (
        window as unknown as {
          McpAppsHost: {
            AppBridge: new (...args: unknown[]) => Record<string, unknown>;
            PostMessageTransport: new (...args: unknown[]) => unknown;
          };
        }
      ).McpAppsHost;
      const state = { openedLinks: [] as string[], initialized: false, sizes: [] as unknown[] };
      (window as unknown as { bridgeState: typeof state }).bridgeState = state;
      const frame = document.getElementById("card-frame") as HTMLIFrameElement;
      const bridge = new host.AppBridge(
        null,
        { name: "app-bridge-test-host", version: "1.0.0" },
        { openLinks: {} },
        {
          hostContext: {
            theme: "light",
            displayMode: "inline",
            locale: "en-US",
            timeZone: "UTC",
            containerDimensions: { width: 400, maxHeight: 6000 },
          },
        },
      ) as Record<string, unknown> & {
        connect(transport: unknown): Promise<void>;
        sendToolInput(params: unknown): Promise<void>;
        sendToolResult(params: unknown): Promise<void>;
      };
      bridge.onopenlink = async ({ url }: { url: string }) => {
        state.openedLinks.push(url);
        return {};
      };
      bridge.onsizechange = (size: { height?: number }) => {
        state.sizes.push(size);
        if (typeof size.height === "number") frame.style.height = `${size.height}px`;
      };
      bridge.oninitialized = async () => {
        state.initialized = true;
        await bridge.sendToolInput({ arguments: input });
        await bridge.sendToolResult(result);
      };
      // Connect before the card loads, or its ui/initialize would go unheard.
      await bridge.connect(new host.PostMessageTransport(frame.contentWindow, frame.contentWindow));
      frame.srcdoc = doc;
    },
    [html, toolInput, toolResult] as const,
  );
  await page.waitForFunction(
    () => (window as unknown as { bridgeState: { initialized: boolean } }).bridgeState.initialized,
  );
}
