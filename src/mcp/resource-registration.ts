/**
 * How resources and MCP Apps cards reach the SDK: like tools, each is described
 * as data, read with the caller's account context, and listed only to a
 * credential whose scopes allow it.
 */
import {
  type CacheHint,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { isGranted } from "../auth/scope-check";
import type { AppError, Result } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { AccountToolContext } from "./account-context";
import { APP_MIME_TYPE, type AppCard, CARD_RESOURCE_META } from "./apps";
import { EVERYTHING, type RequestNeeds } from "./request-needs";

export interface AccountFixedResource {
  readonly name: string;
  readonly uri: string;
  readonly title: string;
  readonly description: string;
  /** How long a client may reuse a read (protocol 2026-07-28); omitted means "do not cache". */
  readonly cacheHint?: CacheHint;
  readonly scope: Scope;
  read(context: AccountToolContext): Promise<Result<unknown>>;
}

/** A family of resources named by an RFC 6570 template, e.g. `synthetic://runs/{run_id}`. */
export interface AccountResourceTemplate {
  readonly name: string;
  readonly uriTemplate: string;
  readonly title: string;
  readonly description: string;
  readonly scope: Scope;
  /** `variables` are the template's, taken from the URI that was read. */
  read(variables: Readonly<Record<string, string>>, context: AccountToolContext): Promise<Result<unknown>>;
}

/** One list holds both, so the server and the scope gate read the same resources. */
export type AccountResource = AccountFixedResource | AccountResourceTemplate;

const templates = new WeakMap<AccountResourceTemplate, ResourceTemplate>();

function templateOf(resource: AccountResourceTemplate): ResourceTemplate {
  // No list callback: synthetic://runs already lists the runs.
  let template = templates.get(resource);
  if (!template) {
    template = new ResourceTemplate(resource.uriTemplate, { list: undefined });
    templates.set(resource, template);
  }
  return template;
}

/** Whether reading `uri` reads this resource: its URI exactly, or a match of its template. */
export function resourceMatches(resource: AccountResource, uri: string): boolean {
  return "uriTemplate" in resource ? templateOf(resource).uriTemplate.match(uri) !== null : resource.uri === uri;
}

/**
 * A read that failed; an id that does not exist (or is another account's) is the SDK's not-found error, with our
 * sentence.
 */
function readFailure(uri: string, error: AppError): ProtocolError {
  return error.code === "not_found"
    ? new ResourceNotFoundError(uri, error.message)
    : new ProtocolError(ProtocolErrorCode.InternalError, error.message);
}

function jsonContents(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value, null, 2) }] };
}

export function registerAccountResources(
  server: McpServer,
  context: AccountToolContext,
  resources: readonly AccountResource[],
  needs: RequestNeeds = EVERYTHING,
): void {
  const { scopes } = context;
  for (const resource of resources) {
    if ("uriTemplate" in resource) {
      registerTemplate(server, context, resource, needs);
      continue;
    }
    if (!needs.resource(resource.uri)) continue;
    if (!isGranted(scopes, resource.scope)) continue;
    server.registerResource(
      resource.name,
      resource.uri,
      {
        title: resource.title,
        description: resource.description,
        mimeType: "application/json",
        ...(resource.cacheHint === undefined ? {} : { cacheHint: resource.cacheHint }),
      },
      async (uri): Promise<ReadResourceResult> => {
        const content = await resource.read(context);
        if (!content.ok) throw readFailure(uri.href, content.error);
        return jsonContents(uri.href, content.value);
      },
    );
  }
}

function registerTemplate(
  server: McpServer,
  context: AccountToolContext,
  resource: AccountResourceTemplate,
  needs: RequestNeeds,
): void {
  const template = templateOf(resource);
  if (!needs.template((uri) => template.uriTemplate.match(uri) !== null)) return;
  if (!isGranted(context.scopes, resource.scope)) return;
  server.registerResource(
    resource.name,
    template,
    { title: resource.title, description: resource.description, mimeType: "application/json" },
    async (uri, variables): Promise<ReadResourceResult> => {
      // A variable is a list only for exploded templates, which we do not use.
      const values = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [name, Array.isArray(value) ? value.join(",") : value]),
      );
      const content = await resource.read(values, context);
      if (!content.ok) throw readFailure(uri.href, content.error);
      return jsonContents(uri.href, content.value);
    },
  );
}

/** The `ui://` cards that tools name in their `_meta`; registered once per server, like any resource. */
export function registerAppCards(
  server: McpServer,
  cards: readonly AppCard[],
  cacheHint?: CacheHint,
  needs: RequestNeeds = EVERYTHING,
): void {
  for (const card of cards) {
    if (!needs.resource(card.uri)) continue;
    server.registerResource(
      card.name,
      card.uri,
      {
        title: card.title,
        description: card.description,
        mimeType: APP_MIME_TYPE,
        _meta: CARD_RESOURCE_META,
        ...(cacheHint === undefined ? {} : { cacheHint }),
      },
      async (uri): Promise<ReadResourceResult> => ({
        contents: [{ uri: uri.href, mimeType: APP_MIME_TYPE, text: card.html, _meta: CARD_RESOURCE_META }],
      }),
    );
  }
}
