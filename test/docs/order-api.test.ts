/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import page from "../../docs/order-api.md?raw";
import { OrderRequestSchema, OrderViewSchema } from "../../src/orders/intake-schemas";

// docs/order-api.md shows a request and what GET /api/orders/:id answers. Both
// follow from the request's schema: an intake field added to it without the
// page saying so fails here.

/** The JSON body of the first curl example (its -d '…'). */
function exampleBody(markdown: string): Record<string, unknown> {
  const body = /-d '(\{[\s\S]*?\})'/.exec(markdown)?.[1] ?? "{}";
  return JSON.parse(body) as Record<string, unknown>;
}

/** The fields the GET row lists between braces. */
function viewFields(markdown: string): string[] {
  const row = markdown.split("\n").find((line) => line.startsWith("| `GET /api/orders/:id` |")) ?? "";
  return (/`\{([^}]*)\}`/.exec(row)?.[1] ?? "").split(",").map((field) => field.trim());
}

describe("docs/order-api.md", () => {
  it("its example request carries every field of the request, and is one the API accepts", () => {
    const body = exampleBody(page);
    expect(Object.keys(body).sort()).toEqual(Object.keys(OrderRequestSchema.shape).sort());
    expect(OrderRequestSchema.safeParse(body).success).toBe(true);
  });

  it("lists exactly the fields GET /api/orders/:id answers", () => {
    expect(viewFields(page).sort()).toEqual(Object.keys(OrderViewSchema.shape).sort());
  });

  it("reads the page: a row without the fields lists none (self-check)", () => {
    expect(viewFields("| `GET /api/orders/:id` | the order |")).toEqual([""]);
    expect(exampleBody("no example")).toEqual({});
  });
});
