/**
 * Every credential the tests present, defined once. The dev tokens are the
 * ones .dev.vars configures for the test environment.
 */
export const ACME_TOKEN = "acme-dev-token";
export const GLOBEX_TOKEN = "globex-dev-token";
export const ACME_APPROVER_TOKEN = "acme-approver-dev-token";
export const GLOBEX_APPROVER_TOKEN = "globex-approver-dev-token";
/** A second acme approver, for proposals that need two (four eyes). */
export const ACME_SECOND_APPROVER_TOKEN = "acme-second-approver-dev-token";
/** An acme approver token with the viewer role: sees the queue, decides nothing. */
export const ACME_VIEWER_TOKEN = "acme-viewer-dev-token";

/** Long enough for production; PRODUCTION_ENV (./app-with-env.ts) configures them. */
export const PRODUCTION_TOKEN = "p".repeat(40);
export const PRODUCTION_APPROVER_TOKEN = "q".repeat(40);

/** An acme MCP token narrowed to orders:read; only test/mcp/scopes.test.ts configures it. */
export const READER_TOKEN = "orders-reader-token";
