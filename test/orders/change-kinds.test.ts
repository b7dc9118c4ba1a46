/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { fail, ok } from "../../src/core/errors";
import {
  ACTION_LABELS,
  APPLIED_EVENT_TYPES,
  APPLY_TOOLS,
  CHANGE_KIND_NAMES,
  CHANGE_KINDS,
  ChangeActionSchema,
  moneyRule,
  PROPOSE_TOOL_NAMES,
} from "../../src/orders/change-kinds";
import { APPLY_APPROVED_CHANGE, defineChangeKind, type Plan } from "../../src/orders/kinds/kind";

// The registry of change kinds is built from one module per kind: every
// list a kind appears in follows from it, and the machinery that serves all
// kinds names none of them. The compile-time half (a kind missing a piece
// does not compile) is the @ts-expect-error block at the end, which
// `npm run typecheck` holds.

const sources = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/** Where a kind may be named: its own module, the registry and the playbook (the resolution kind's table). */
const MAY_NAME_KINDS = [/^src\/orders\/kinds\//, /^src\/orders\/change-kinds\.ts$/, /^src\/orders\/playbook\.ts$/];

/** The code without its comments: a comment may give a kind as an example. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

describe("the registry of change kinds", () => {
  it("files each kind under the name its changes carry, each action, event and tool once", () => {
    for (const name of CHANGE_KIND_NAMES) expect(CHANGE_KINDS[name].name).toBe(name);
    const actions = CHANGE_KIND_NAMES.flatMap((name) => Object.keys(CHANGE_KINDS[name].actions));
    expect([...ChangeActionSchema.options].sort()).toEqual([...actions].sort());
    expect(new Set(actions).size).toBe(actions.length);
    expect(new Set(APPLIED_EVENT_TYPES).size).toBe(CHANGE_KIND_NAMES.length);
    expect(new Set(PROPOSE_TOOL_NAMES).size).toBe(CHANGE_KIND_NAMES.length);
    const applyTools = APPLY_TOOLS.map((use) => use.tool.name);
    expect(PROPOSE_TOOL_NAMES.filter((name) => applyTools.includes(name))).toEqual([]);
    expect(APPLY_TOOLS.flatMap((use) => use.kinds).sort()).toEqual([...CHANGE_KIND_NAMES].sort());
  });

  it("gives every action words and every tool a description a model can act on", () => {
    for (const action of ChangeActionSchema.options) expect(ACTION_LABELS[action]).toMatch(/^[A-Z][^_]+$/);
    for (const name of CHANGE_KIND_NAMES) {
      const kind = CHANGE_KINDS[name];
      expect(kind.proposeTool.description.length, name).toBeGreaterThanOrEqual(80);
      for (const field of Object.values<z.ZodType>(kind.proposeTool.input))
        expect(field.description, `${name}: every input field is described`).toBeTruthy();
      expect(kind.noun).not.toMatch(/_/);
    }
  });

  it("a money rule answers every payment state, and an action without one moves nothing", () => {
    for (const action of ChangeActionSchema.options) {
      const rule = moneyRule(action);
      if (rule === null) continue;
      for (const payment of ["captured", "authorized", "declined", "refunded", "voided", undefined])
        expect(rule(payment).move, `${action} with ${payment}`).toMatch(/^[a-z_]+$/);
    }
  });

  it("the machinery that serves every kind names none: no kind, action or applied event outside the kinds' modules", () => {
    const names = [...CHANGE_KIND_NAMES, ...ChangeActionSchema.options, ...APPLIED_EVENT_TYPES];
    const named = Object.entries(sources)
      .map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), code(text)] as const)
      .filter(([path]) => !MAY_NAME_KINDS.some((allowed) => allowed.test(path)))
      .flatMap(([path, text]) =>
        names.filter((name) => new RegExp(`\\b${name}\\b`).test(text)).map((name) => `${path}: ${name}`),
      );
    expect(named).toEqual([]);
  });

  it("the self-check: a switch over a kind's action outside its module is caught", () => {
    const text = code('switch (change.action) {\n  case "change_shipping_address": // the address\n}');
    expect(/\bchange_shipping_address\b/.test(text)).toBe(true);
    expect(code("// see change_shipping_address")).not.toMatch(/change_shipping_address/);
  });
});

// A kind that leaves out a piece is a compile error, not a silent default.
const Change = z.object({ kind: z.literal("hold"), action: z.enum(["hold_order", "release_order"]) });
const complete = {
  name: "hold",
  change: Change,
  noun: "hold",
  actions: { hold_order: { label: "Hold order", money: null }, release_order: { label: "Release order", money: null } },
  summary: () => "Hold the order",
  appliedEvent: "hold_applied",
  proposeTool: { name: "hold_order", title: "Hold an order", description: "Holds an order.", input: {} },
  applyTool: APPLY_APPROVED_CHANGE,
  propose: () => fail("conflict", "never"),
  apply: (order) => order,
} satisfies Parameters<typeof defineChangeKind<typeof Change, Record<string, never>>>[0];
defineChangeKind(complete);
const { appliedEvent: _event, ...withoutEvent } = complete;
// @ts-expect-error a kind without its audit event
defineChangeKind(withoutEvent);
// @ts-expect-error an action without its words and money rule
defineChangeKind({ ...complete, actions: { hold_order: complete.actions.hold_order } });
const plan: Plan = { risk: "low", rationale: "", evidence: [] };
defineChangeKind({ ...complete, propose: () => ok({ change: { kind: "hold", action: "hold_order" } as const, plan }) });
const anotherChange = { kind: "other", action: "hold_order" } as const;
// @ts-expect-error a proposing rule that answers another kind's change
defineChangeKind({ ...complete, propose: () => ok({ change: anotherChange, plan }) });
