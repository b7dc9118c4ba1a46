// Bundled for the browser by e2e/app-bridge-host.ts: the host side of MCP Apps
// as the maintained SDK implements it (test only; never part of the Worker).
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
