import { installMcpServerExtension } from "../src/mcp/server-extension";
import { conformanceFixtures } from "./fixtures";

// The Worker `npm run conformance` starts (`wrangler dev conformance/worker.ts`,
// with wrangler.toml's bindings): the product's own entry, plus the conformance
// suite's fixtures in every MCP server it builds. wrangler.toml's `main` never
// imports this folder, so `wrangler deploy` ships none of it.
installMcpServerExtension(conformanceFixtures);

// Every class the product exports (Durable Objects, entrypoints) is exported
// here too, so a new binding in wrangler.toml cannot leave this entry behind.
export * from "../src/index";
export { default } from "../src/index";
