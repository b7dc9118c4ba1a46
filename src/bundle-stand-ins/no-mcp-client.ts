/**
 * Stands in for `@modelcontextprotocol/client` in the deployed bundle (see
 * [alias] in wrangler.toml). The `agents` package imports the MCP client so an
 * Agent can connect to other MCP servers; Order Ops Edge never does, and the
 * client's protocol schemas would otherwise be built at every cold start.
 * Anything that tries to use it fails loudly instead of half-working.
 */
function unavailable(name: string): never {
  throw new Error(
    `${name} from @modelcontextprotocol/client is not part of this Worker's bundle (wrangler.toml [alias]); Order Ops Edge does not connect its Agent to other MCP servers`,
  );
}

export class Client {
  constructor() {
    unavailable("Client");
  }
}

export class StreamableHTTPClientTransport {
  constructor() {
    unavailable("StreamableHTTPClientTransport");
  }
}

export class SSEClientTransport {
  constructor() {
    unavailable("SSEClientTransport");
  }
}

/** Only ever tested with instanceof by agents; nothing can throw one here. */
export class SdkHttpError extends Error {
  readonly status = 0;
}

/** agents builds one at module load for its client defaults, so constructing it must work; using it must not. */
export class CfWorkerJsonSchemaValidator {
  getValidator(): never {
    unavailable("CfWorkerJsonSchemaValidator");
  }
}

export function validateClientMetadataUrl(): never {
  unavailable("validateClientMetadataUrl");
}
