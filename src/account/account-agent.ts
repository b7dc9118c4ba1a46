import { Agent } from "agents";

/**
 * One AccountAgent per account. It will serve that account's MCP session and
 * serialize its generator state and proposal confirmations.
 */
export class AccountAgent extends Agent<Env> {}
