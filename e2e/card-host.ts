/**
 * A minimal MCP Apps host for the card tests: it puts a card in a sandboxed
 * iframe under the CSP a host builds from the card's `_meta.ui.csp`, answers
 * `ui/initialize`, then sends `ui/notifications/tool-input` and
 * `ui/notifications/tool-result` exactly as a host does after a tool call. It
 * records every message the card sends, grants `ui/open-link` (recording the
 * URL) and refuses anything else, as a host would for a method it does not offer.
 */
import type { Page } from "playwright-core";

export interface CardCsp {
  readonly connectDomains?: readonly string[];
  readonly resourceDomains?: readonly string[];
  readonly frameDomains?: readonly string[];
  readonly baseUriDomains?: readonly string[];
}

/** What a card sent to the host. */
export interface CardMessage {
  readonly jsonrpc?: string;
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

export interface ToolResultForCard {
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** The policy the spec tells a host to build from `_meta.ui.csp` (SEP-1865, "CSP Construction from Metadata"). */
export function hostCsp(csp: CardCsp): string {
  const list = (domains: readonly string[] | undefined) => (domains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `style-src 'self' 'unsafe-inline' ${list(csp.resourceDomains)}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${list(csp.resourceDomains)}`,
    `font-src 'self' ${list(csp.resourceDomains)}`,
    `media-src 'self' data: ${list(csp.resourceDomains)}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ]
    .map((directive) => directive.trim())
    .join("; ");
}

const HOST_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>test host</title>
<style>body{margin:16px;background:#eef0f3}iframe{display:block;border:0;background:#fff}</style></head>
<body><script>
window.received = [];
window.openedLinks = [];
window.mountCard = (html, toolInput, toolResult, width) => new Promise((resolve) => {
  const frame = document.createElement("iframe");
  frame.id = "card-frame";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = width + "px";
  frame.style.height = "60px";
  document.body.append(frame);
  const send = (message) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  window.addEventListener("message", (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    window.received.push(m);
    if (m.method === "ui/initialize") {
      send({ id: m.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "card-test-host", version: "1.0.0" }, hostCapabilities: { openLinks: {} },
        hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], containerDimensions: { width, maxHeight: 6000 }, locale: "en-US", timeZone: "UTC", platform: "web" } } });
    } else if (m.method === "ui/notifications/initialized") {
      if (toolResult === null) { resolve(); return; }
      send({ method: "ui/notifications/tool-input", params: { arguments: toolInput } });
      send({ method: "ui/notifications/tool-result", params: toolResult });
      resolve();
    } else if (m.method === "ui/notifications/size-changed") {
      if (typeof m.params.height === "number") frame.style.height = m.params.height + "px";
    } else if (m.method === "ui/open-link") {
      window.openedLinks.push(m.params.url);
      send({ id: m.id, result: {} });
    } else if (m.method !== undefined && m.id !== undefined) {
      send({ id: m.id, error: { code: -32601, message: "this host does not offer " + m.method } });
    }
  });
  frame.srcdoc = html;
});
</script></body></html>`;

export interface MountedCard {
  /** Every message the card sent, in order. */
  messages(): Promise<CardMessage[]>;
  openedLinks(): Promise<string[]>;
}

/**
 * Loads the host page, then the card with the host's CSP, and delivers the
 * tool input and result (pass `null` as the result to leave the card waiting).
 * Resolves once the card has drawn the result and reported its final size.
 */
export async function mountCard(
  page: Page,
  card: { readonly html: string; readonly csp: CardCsp },
  toolInput: Record<string, unknown>,
  toolResult: ToolResultForCard | null,
  width: number,
): Promise<MountedCard> {
  const html = card.html.replace(
    "<head>",
    `<head><meta http-equiv="Content-Security-Policy" content="${hostCsp(card.csp)}">`,
  );
  await page.setContent(HOST_PAGE);
  await page.evaluate(
    ([doc, input, result, w]) =>
      (window as unknown as { mountCard: (...args: unknown[]) => Promise<void> }).mountCard(doc, input, result, w),
    [html, toolInput, toolResult, width] as const,
  );
  // The card reports its size after drawing; wait until the frame has taken it and stopped changing.
  let last = "";
  for (let i = 0; i < 40; i++) {
    const height = await page.locator("#card-frame").evaluate((frame) => (frame as HTMLIFrameElement).style.height);
    if (height === last && height !== "60px") break;
    last = height;
    await page.waitForTimeout(50);
  }
  const read = <T>(name: "received" | "openedLinks") =>
    page.evaluate((key) => (window as unknown as Record<string, T>)[key], name) as Promise<T>;
  return { messages: () => read<CardMessage[]>("received"), openedLinks: () => read<string[]>("openedLinks") };
}

/**
 * Pixels of a PNG that differ clearly from its top-left pixel (the card's
 * background), counted in the browser with a canvas: a blank card has none.
 */
export async function inkPixels(page: Page, png: Buffer): Promise<{ ink: number; total: number }> {
  return page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d");
    if (!context) throw new Error("no 2d canvas");
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    const [r, g, b] = [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0];
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs((data[i] ?? 0) - r) + Math.abs((data[i + 1] ?? 0) - g) + Math.abs((data[i + 2] ?? 0) - b) > 96)
        ink++;
    }
    return { ink, total: image.width * image.height };
  }, png.toString("base64"));
}
