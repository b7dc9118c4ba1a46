/**
 * Stands in for `capnweb` in the deployed bundle (see [alias] in
 * wrangler.toml). `agents` imports it for one thing: the Cap'n Web transport
 * of a WebSocket connected to an Agent (`?__agents_transport=capnweb`). No
 * route of this Worker hands a WebSocket to its AccountAgent (the Worker
 * reaches it over RPC only), and capnweb's 97 KiB were evaluated at every
 * cold start, since agents imports it at its top level.
 */
export function newWebSocketRpcSession(): never {
  throw new Error("capnweb is left out of this bundle (wrangler.toml [alias]): no WebSocket reaches the Agent");
}
