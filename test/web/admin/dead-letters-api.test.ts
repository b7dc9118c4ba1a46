import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../../helpers/app-with-env";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, ACME_VIEWER_TOKEN } from "../../helpers/tokens";

// The dead letters are an admin's to read: an approver or a viewer is told
// which role it takes, an MCP token that it is the wrong credential, and each
// account sees only its own.

const ADMIN_TOKEN = "acme-admin-approver-token";
const GLOBEX_ADMIN_TOKEN = "globex-admin-approver-token";
const WITH_ADMINS = {
  APPROVER_TOKENS: JSON.stringify({
    [ACME_APPROVER_TOKEN]: { account: "acme", approver: "Avery" },
    [ACME_VIEWER_TOKEN]: { account: "acme", approver: "Vic", role: "viewer" },
    [ADMIN_TOKEN]: { account: "acme", approver: "Ari", role: "admin" },
    [GLOBEX_ADMIN_TOKEN]: { account: "globex", approver: "Gil", role: "admin" },
  }),
};

function read(token: string, query = ""): Promise<Response> {
  return fetchWithEnv(
    new Request(`http://localhost/api/dead-letters${query}`, { headers: { authorization: `Bearer ${token}` } }),
    WITH_ADMINS,
  );
}

async function deadLetterFor(account: string, eventId: string): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO dead_letters (event_id, account, destination, event_type, payload, created_at, attempts, last_status, reason, dead_lettered_at)
     VALUES (?, ?, 'approvals', 'proposal.created', '{}', ?, 8, 500, 'the receiver answered 500', ?)`,
  )
    .bind(eventId, account, new Date().toISOString(), new Date().toISOString())
    .run();
}

describe("GET /api/dead-letters", () => {
  it("an admin reads their account's dead letters, and only theirs", async () => {
    await deadLetterFor("acme", "evt-acme-dead-1");
    await deadLetterFor("globex", "evt-globex-dead-1");
    const response = await read(ADMIN_TOKEN);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      total: number;
      dead_letters: Array<{ event_id: string; account: string; reason: string }>;
    };
    const ids = body.dead_letters.map((letter) => letter.event_id);
    expect(ids).toContain("evt-acme-dead-1");
    expect(ids).not.toContain("evt-globex-dead-1");
    expect(body.dead_letters.every((letter) => letter.account === "acme")).toBe(true);
    expect(body.total).toBe(body.dead_letters.length);
  });

  it.each([
    [ACME_APPROVER_TOKEN, "reading the dead letters needs the admin role; Avery has the approver role"],
    [ACME_VIEWER_TOKEN, "reading the dead letters needs the admin role; Vic has the viewer role"],
  ])("another role is refused with 403, naming the role it takes", async (token, message) => {
    const response = await read(token);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: "forbidden", message });
  });

  it("an MCP token is told to use an admin approver token", async () => {
    const response = await read(ACME_TOKEN);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { message: string }).message).toBe(
      "MCP tokens cannot read the dead letters; use an approver token with the admin role",
    );
  });

  it("a bad limit is a clear 400", async () => {
    const response = await read(ADMIN_TOKEN, "?limit=lots");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe("limit must be a whole number from 1 to 200");
  });
});
