/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, stable revision
 * 2026-01-26): the plain data that lets a host which renders Apps show a tool's
 * result in a card. A tool names its card in `_meta.ui.resourceUri`; the card
 * is a `ui://` resource of type `text/html;profile=mcp-app`.
 *
 * We emit this documented data ourselves rather than calling
 * `registerAppTool`/`registerAppResource` from `@modelcontextprotocol/ext-apps/server`:
 * those helpers are a few lines of `_meta` shaping around `server.registerTool`
 * and `server.registerResource`, and our registration modules already own those calls (published
 * schemas, one error mapping). Depending on the package for that would add a
 * runtime dependency to the Worker for two constants and a spread. The
 * constants are pinned to the package's own in test/mcp/apps.test.ts, so a
 * change upstream fails a test instead of silently breaking hosts.
 */
export const APPS_EXTENSION_ID = "io.modelcontextprotocol/ui";
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The flat key from before `_meta.ui` existed; hosts released before the stable spec still read it. */
const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri";

/** One card: a self-contained HTML document that renders a tool result the host hands it. */
export interface AppCard {
  readonly name: string;
  readonly uri: `ui://${string}`;
  readonly title: string;
  readonly description: string;
  readonly html: string;
}

/**
 * The resource's security metadata. Every list is empty: a card loads nothing
 * from anywhere (no fetch, no images, no fonts, no frames); its script and style
 * are inline and its data arrives from the host by postMessage.
 */
export const CARD_RESOURCE_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
} as const;

/**
 * A tool's `_meta` for its card. `visibility: ["model"]` tells a host to refuse
 * `tools/call` from any card: our cards call no tool, and a card must never be
 * able to confirm a change (the host enforces this, not us, which is why
 * approval stays in the application and no tool approves).
 */
export function appToolMeta(card: AppCard): Record<string, unknown> {
  return { ui: { resourceUri: card.uri, visibility: ["model"] }, [LEGACY_RESOURCE_URI_KEY]: card.uri };
}
