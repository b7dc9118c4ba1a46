import { env } from "cloudflare:workers";
import type { Context } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../../src/http/app-env";
import { requestAuditSeal } from "../../src/order-api/audit-seal-request";
import { verifyAuditChain } from "../../src/store/audit-chain";
import { postOrder, uniqueRequestId, validOrder } from "../helpers/orders";
import { waitFor } from "../helpers/wait-for";

// After an intake order the isolate asks the account's object to seal: one
// request in flight per account, the orders written meanwhile asked for once
// more when it returns, and only the first order's request kept working.

/** An account object whose requestAuditSeal answers only when the test says so. */
function fakeAgents() {
  const asked: string[] = [];
  const answers: (() => void)[] = [];
  const agents = {
    getByName: (account: string) => ({
      requestAuditSeal: (caller: { account: string }) => {
        asked.push(`${account}:${caller.account}`);
        return new Promise((resolve) => answers.push(() => resolve({ ok: true, value: null })));
      },
    }),
  };
  return { agents, asked, answers };
}

function contextWith(agents: unknown, kept: Promise<unknown>[]): Context<AppEnv> {
  return {
    env: { ACCOUNT_AGENT: agents },
    executionCtx: { waitUntil: (work: Promise<unknown>) => kept.push(work) },
  } as unknown as Context<AppEnv>;
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("requestAuditSeal", () => {
  // The pause between two requests runs on a fake clock here; the last test uses the real one.
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a burst of orders costs one request, and one more for the orders written while it was out", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const { agents, asked, answers } = fakeAgents();
    const kept: Promise<unknown>[] = [];
    const account = `burst-${crypto.randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 50; i++) requestAuditSeal(contextWith(agents, kept), account);
    await turns();
    expect(asked).toEqual([`${account}:${account}`]);
    expect(kept).toHaveLength(1);

    requestAuditSeal(contextWith(agents, kept), account); // written while the request is out
    answers.shift()?.();
    // The next request waits out the interval between requests (200 ms), on the fake clock.
    await vi.advanceTimersByTimeAsync(150);
    expect(asked).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(150);
    expect(asked).toHaveLength(2);
    answers.shift()?.();
    await vi.advanceTimersByTimeAsync(300);
    await kept[0];
    expect(asked).toHaveLength(2);
    expect(kept).toHaveLength(1);

    // Nothing in flight any more: the next order asks at once.
    requestAuditSeal(contextWith(agents, kept), account);
    await turns();
    expect(asked).toHaveLength(3);
    answers.shift()?.();
    await vi.advanceTimersByTimeAsync(300);
    await kept[1];
  });

  it("accounts are asked for separately", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const { agents, asked, answers } = fakeAgents();
    const kept: Promise<unknown>[] = [];
    const [a, b] = [`a-${crypto.randomUUID().slice(0, 8)}`, `b-${crypto.randomUUID().slice(0, 8)}`];
    requestAuditSeal(contextWith(agents, kept), a);
    requestAuditSeal(contextWith(agents, kept), b);
    await turns();
    expect(asked).toEqual([`${a}:${a}`, `${b}:${b}`]);
    for (const answer of answers.splice(0)) answer();
    await vi.advanceTimersByTimeAsync(300);
    await Promise.all(kept);
  });

  it("through the real account object, an intake order's event ends up sealed", async () => {
    const response = await postOrder(validOrder(uniqueRequestId("sealed-after-intake")));
    expect(response.status).toBe(201);
    const report = await waitFor(
      () => verifyAuditChain(env.DB, "acme"),
      (read) => read.unsealed === 0,
      5_000,
      100,
    );
    expect(report).toMatchObject({ ok: true, unsealed: 0 });
  });
});
