import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import app from "../../src/index";
import { PRODUCTION_APPROVER_TOKEN, PRODUCTION_TOKEN } from "./tokens";

/**
 * Calls the Worker's Hono app in-process with some env values replaced
 * (configuration variables, or a binding such as a rate limiter). Unlike
 * exports.default.fetch there is no HTTP hop, so the request arrives exactly
 * as built, empty headers included.
 */
export function fetchWithEnv(request: Request, overrides: Record<string, unknown> = {}): Promise<Response> {
  return Promise.resolve(app.fetch(request, { ...env, ...overrides } as Env, createExecutionContext()));
}

/** A production configuration that parses: long tokens and a public base URL. */
export const PRODUCTION_ENV = {
  ENVIRONMENT: "production",
  PUBLIC_BASE_URL: "https://ops.example.com",
  MCP_TOKENS: JSON.stringify({ [PRODUCTION_TOKEN]: { account: "acme", operator: "Prod Ops" } }),
  APPROVER_TOKENS: JSON.stringify({ [PRODUCTION_APPROVER_TOKEN]: { account: "acme", approver: "Prod Approver" } }),
  PUBLIC_INTAKE_ACCOUNT: "",
};
