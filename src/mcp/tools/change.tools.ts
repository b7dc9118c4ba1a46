import { z } from "zod/v4";
import { fail } from "../../core/errors";
import { orList } from "../../core/lists";
import {
  APPLY_TOOLS,
  CHANGE_KIND_NAMES,
  CHANGE_KINDS,
  type ChangeKindName,
  type KindInput,
} from "../../orders/change-kinds";
import { ConfirmResultSchema, PROPOSAL_OUTLINE, ProposalViewSchema } from "../../proposals/proposal-schemas";
import { proposalCard } from "../cards/proposal.card";
import { OrderIdParam, ProposalIdParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

/**
 * The tools of every change kind, built from the registry (orders/change-kinds.ts):
 * a proposing tool per kind, and an apply tool per name the kinds give (kinds
 * may share one). Names, titles, descriptions and inputs are the kinds' own.
 */

/** Proposing changes nothing on the order: a proposal is inert until a person approves it. */
const PROPOSE = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const APPLY = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const;

const APPLY_DESCRIPTION =
  "Applies a proposal once a person has approved it in the application; before that it answers approval_required and changes nothing. Another kind's proposal is refused, naming its tool. Applies exactly once, with an audit event; later calls return the same outcome. A changed order answers stale; expired and rejected ones are refused. applying: an external provider has not confirmed yet (the server settles it); failed: it refused, nothing changed.";

function proposeTool<K extends ChangeKindName>(name: K): AccountTool {
  const { proposeTool: tool } = CHANGE_KINDS[name];
  // Typed by the field every kind shares: the compiler cannot spread a shape that depends on K.
  const input = z.object({ order_id: OrderIdParam, ...tool.input }) as z.ZodObject<{ order_id: typeof OrderIdParam }>;
  return defineTool({
    name: tool.name,
    scope: "orders:propose",
    title: tool.title,
    description: tool.description,
    input,
    output: ProposalViewSchema,
    // get_proposal's listing outlines the whole proposal.
    outlineFields: PROPOSAL_OUTLINE,
    annotations: PROPOSE,
    ui: proposalCard,
    // What is left beside order_id is exactly the kind's input: the schema is its fields and order_id.
    handler: async ({ order_id, ...fields }, context) =>
      context.agent.proposeChange(name, order_id, fields as KindInput<K>),
  });
}

/** One tool per kind, in the registry's order. */
export const proposeTools: readonly AccountTool[] = CHANGE_KIND_NAMES.map(proposeTool);

/**
 * One tool per apply tool name. Each applies only the kinds that name it: a
 * proposal of another kind is refused, naming the tool that applies it, so
 * the tools do what their names and the docs say (docs/operations.md).
 */
export const applyTools: readonly AccountTool[] = APPLY_TOOLS.map(({ tool, kinds, after }) =>
  defineTool({
    name: tool.name,
    scope: "orders:propose",
    title: tool.title,
    description: `Use after ${orList(after)}. ${APPLY_DESCRIPTION}`,
    input: z.object({ proposal_id: ProposalIdParam }),
    output: ConfirmResultSchema,
    annotations: APPLY,
    ui: proposalCard,
    handler: async ({ proposal_id }, context) => {
      const proposal = await context.agent.getProposal(proposal_id);
      // An unknown id is answered by the confirm itself, as before.
      if (proposal.ok && !kinds.includes(proposal.value.kind)) {
        const kind = CHANGE_KINDS[proposal.value.kind];
        return fail(
          "bad_request",
          `proposal ${proposal_id} is ${withArticle(kind.noun)} (from ${kind.proposeTool.name}): apply it with ${kind.applyTool.name}; ${tool.name} applies only proposals from ${orList(after)}. Nothing was changed.`,
        );
      }
      return context.agent.confirmProposal(proposal_id);
    },
  }),
);

const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
