// What test/global/second-order-api.ts, webhook-receiver.ts and repo-files.ts hand the tests through vitest's
// provide/inject; read in both type-check programs (Workers and Node).
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** The second local order API: its origin and the bearer token it wants. */
    secondOrderApi: { url: string; token: string };
    /** The local webhook receiver: its origin, and the secret each destination's deliveries must be signed with. */
    webhookReceiver: { url: string; secrets: { approvals: string; downstream: string } };
    /** Every file and folder of the repository (folders end in "/"), and the names of package.json's scripts. */
    repoFiles: { paths: string[]; scripts: string[] };
  }
}
