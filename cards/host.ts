/**
 * The card's side of the MCP Apps bridge (extension io.modelcontextprotocol/ui,
 * revision 2026-01-26): JSON-RPC over postMessage with the host window, in the
 * few lines a view needs, so a card carries no SDK bundle. The host sends the
 * tool's input and result; the card answers with its size. The only requests a
 * card makes are the handshake and `ui/open-link`: it never calls a tool, so it
 * can open the approval page but cannot approve or apply anything.
 */

/** Set per card at build time (scripts/cards.ts): the card's name, as hosts see it in ui/initialize. */
declare const CARD_NAME: string;

/** Bumped when a card's behaviour changes; hosts see it in ui/initialize. */
const CARD_VERSION = "1.1.0";

/** The part of the host's context a card uses (ui/initialize, host-context-changed). */
export interface HostContext {
  readonly locale?: string;
  readonly timeZone?: string;
  readonly theme?: string;
  readonly styles?: { readonly variables?: Readonly<Record<string, unknown>> };
}

/** What the host hands over in ui/notifications/tool-result: a tools/call result. */
export interface ToolResult {
  readonly content?: readonly { readonly type?: string; readonly text?: string }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

interface RpcMessage {
  readonly jsonrpc?: string;
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: unknown;
}

type Handler = (params: Record<string, unknown>) => unknown;

let context: HostContext = {};
let nextId = 1;
const pending = new Map<number | string, { resolve: (result: unknown) => void; reject: (error: unknown) => void }>();

/** The host's locale and time zone, for the formatting helpers (undefined: the browser's own). */
export function hostContext(): HostContext {
  return context;
}

function post(message: Omit<RpcMessage, "jsonrpc">): void {
  window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
}

function notify(method: string, params: Record<string, unknown>): void {
  post({ method, params });
}

function request(method: string, params: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    post({ id, method, params });
  });
}

let lastSize = "";
export function reportSize(): void {
  const box = document.documentElement.getBoundingClientRect();
  const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
  const key = `${size.width}x${size.height}`;
  if (key === lastSize) return;
  lastSize = key;
  notify("ui/notifications/size-changed", size);
}

function applyContext(update: HostContext): void {
  context = { ...context, ...update };
  const variables = context.styles?.variables ?? {};
  for (const [name, value] of Object.entries(variables)) {
    if (name.startsWith("--") && typeof value === "string") document.documentElement.style.setProperty(name, value);
  }
  if (context.theme === "light" || context.theme === "dark") document.documentElement.style.colorScheme = context.theme;
}

/**
 * A button that asks the host to open `url`, an http(s) link only; `status`
 * says so when the host would not. null for any other kind of URL.
 */
export function openLinkButton(url: string, status: HTMLElement): HTMLButtonElement | null {
  let safe = false;
  try {
    safe = ["https:", "http:"].includes(new URL(url).protocol);
  } catch {
    safe = false;
  }
  if (!safe) return null;
  const refused = () => {
    status.textContent = `The host did not open the link. Open it yourself: ${url}`;
  };
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Open approval page";
  button.addEventListener("click", () => {
    status.textContent = "";
    request("ui/open-link", { url })
      .then((result) => {
        if ((result as { isError?: boolean } | undefined)?.isError) refused();
      }, refused)
      .finally(reportSize);
  });
  return button;
}

/**
 * Starts the card: answers the host, shows each tool result with `render`
 * (which builds one Node from the structured result), and reports its size.
 * `render` sees only results that are objects; a tool error shows as its text.
 */
export function startCard<T>(render: (data: T) => Node): void {
  const root = document.getElementById("card");
  if (!root) return;
  const show = (node: Node) => {
    root.replaceChildren(node);
    reportSize();
  };
  const paragraph = (className: string, text: string) => {
    const p = document.createElement("p");
    if (className) p.className = className;
    p.textContent = text;
    return p;
  };
  const textOf = (result: ToolResult) => result.content?.find((block) => block?.type === "text")?.text ?? "";

  const handlers = new Map<string, Handler>([
    ["ui/notifications/tool-input", () => root.replaceChildren(paragraph("muted", "Working…"))],
    ["ui/notifications/tool-result", (params) => show(resultNode(params as ToolResult))],
    [
      "ui/notifications/tool-cancelled",
      (params) => show(paragraph("muted", `Cancelled${params.reason ? `: ${String(params.reason)}` : "."}`)),
    ],
    ["ui/notifications/host-context-changed", (params) => applyContext(params as HostContext)],
    ["ui/resource-teardown", () => ({})],
    ["ping", () => ({})],
  ]);

  function resultNode(result: ToolResult): Node {
    let data = result.structuredContent;
    if (!data && !result.isError) {
      try {
        data = JSON.parse(textOf(result));
      } catch {
        data = undefined;
      }
    }
    if (result.isError) {
      const alert = paragraph("bad", textOf(result) || "The tool reported an error.");
      alert.setAttribute("role", "alert");
      return alert;
    }
    if (!data || typeof data !== "object") return paragraph("", textOf(result));
    try {
      return render(data as T);
    } catch {
      return paragraph("muted", "This card cannot show this result; the assistant has it as text.");
    }
  }

  window.addEventListener("message", (event: MessageEvent<RpcMessage>) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (message?.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiting || message.id === undefined) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(message.error);
      else waiting.resolve(message.result);
      return;
    }
    const handler = handlers.get(message.method);
    const params = message.params ?? {};
    if (message.id === undefined) {
      handler?.(params);
      return;
    }
    const id = message.id;
    if (handler) void Promise.resolve(handler(params)).then((result) => post({ id, result: result ?? {} }));
    else post({ id, error: { code: -32601, message: "Method not found" } });
  });

  new ResizeObserver(reportSize).observe(document.documentElement);
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: `order-ops-edge ${CARD_NAME}`, version: CARD_VERSION },
    appCapabilities: { availableDisplayModes: ["inline"] },
  })
    .then((result) => {
      applyContext((result as { hostContext?: HostContext } | undefined)?.hostContext ?? {});
      notify("ui/notifications/initialized", {});
      reportSize();
    })
    .catch(() => root.replaceChildren(paragraph("muted", "This host did not start the card.")));
}
