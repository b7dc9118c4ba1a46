// What test/global/second-order-api.ts hands the tests through vitest's
// provide/inject; read in both type-check programs (Workers and Node).
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** The second local order API: its origin and the bearer token it wants. */
    secondOrderApi: { url: string; token: string };
  }
}
