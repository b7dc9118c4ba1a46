import { installMcpServerExtension } from "../src/mcp/server-extension";
import { conformanceFixtures } from "./fixtures";

// The Worker `npm run conformance` starts (`wrangler dev conformance/worker.ts`,
// with wrangler.toml's bindings): the product's own entry, plus the conformance
// suite's fixtures in every MCP server it builds. wrangler.toml's `main` never
// imports this folder, so `wrangler deploy` ships none of it.
installMcpServerExtension(conformanceFixtures);

export { default, AccountAgent, OrderApi } from "../src/index";
