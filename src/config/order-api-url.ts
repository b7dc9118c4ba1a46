/**
 * ORDER_API_URL aims synthetic traffic at an order API outside this Worker,
 * beside the ORDER_API binding; ORDER_API_TOKEN, a secret, is its bearer
 * credential. Both are fixed by the operator: no tool can name a URL.
 */
import { z } from "zod/v4";
import { isLoopbackHost } from "./deployment-checks";

export const OrderApiUrlSchema = z.string().transform((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be the order API's base URL, like https://orders.example.com" });
    return z.NEVER;
  }
  const problems = [
    url.protocol === "https:" || url.protocol === "http:" ? undefined : "must start with https://",
    url.username === "" && url.password === ""
      ? undefined
      : "must not hold a user name or password; put the credential in the ORDER_API_TOKEN secret",
    url.search === "" && url.hash === "" ? undefined : "must not have a query or a fragment",
  ].filter((problem) => problem !== undefined);
  for (const message of problems) ctx.addIssue({ code: "custom", message });
  return problems.length > 0 ? z.NEVER : `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
});

/** Sent as `Authorization: Bearer <token>`, so it must be one header-safe word. */
export const OrderApiTokenSchema = z
  .string()
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces (it is sent as Authorization: Bearer <token>)");

/**
 * Plain http is for a second server on this machine during development;
 * a deployed Worker sends orders and its token over https only.
 */
export function orderApiUrlProblems(
  environment: "development" | "production",
  url: string | undefined,
  token: string | undefined,
): string[] {
  if (url === undefined) {
    return token === undefined
      ? []
      : [
          "ORDER_API_TOKEN is set but ORDER_API_URL is not; the token is sent only to ORDER_API_URL, so set ORDER_API_URL or remove the secret",
        ];
  }
  const { protocol, hostname } = new URL(url);
  if (environment === "production") {
    if (protocol !== "https:") return [`ORDER_API_URL must use https in production`];
    if (isLoopbackHost(hostname))
      return [
        `ORDER_API_URL points at this machine (localhost or a loopback address), which a deployed Worker cannot reach; use the order API's public https URL`,
      ];
    return [];
  }
  if (protocol !== "https:" && !isLoopbackHost(hostname)) {
    return [
      `ORDER_API_URL may use plain http only on this machine (localhost, 127.0.0.1, [::1]); use https for any other host`,
    ];
  }
  return [];
}

/** Where synthetic traffic goes instead of the ORDER_API binding: config.orderApiUrl. */
export function orderApiUrlConfig(url: string | undefined, token: string | undefined) {
  if (url === undefined) return undefined;
  return {
    /** Origin plus an optional base path, without a trailing slash; /api/health and /api/orders go below it. */
    url,
    /** The one host traffic may reach (with its port when not the default). */
    host: new URL(url).host,
    token,
  } as const;
}

export type OrderApiUrl = NonNullable<ReturnType<typeof orderApiUrlConfig>>;
