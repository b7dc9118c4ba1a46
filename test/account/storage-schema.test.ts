import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { migrateAccountStorage, STORAGE_VERSION } from "../../src/account/storage-schema";

// The account object's SQLite schema is one versioned list of steps. An object
// that shipped with an early version must reach the current one with its rows
// intact; this rebuilds the tables as version 1 created them and upgrades.

const VERSION_1 = [
  "CREATE TABLE proposals (proposal_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, change_key TEXT NOT NULL, pinned_version INTEGER NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL)",
  "CREATE INDEX proposals_by_change ON proposals (order_id, change_key, pinned_version)",
  "CREATE TABLE synthetic_batches (batch_id TEXT PRIMARY KEY, record TEXT NOT NULL, started_at TEXT NOT NULL)",
];

const tables = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name",
    )
    .toArray()
    .map((row) => row.name);

describe("the account object's storage schema", () => {
  it("upgrades an object created at version 1 to the current version, keeping its rows", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, `schema-upgrade-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      state.storage.transactionSync(() => {
        for (const table of tables(sql)) sql.exec(`DROP TABLE ${table}`);
        for (const statement of VERSION_1) sql.exec(statement);
        sql.exec("CREATE TABLE account_schema (version INTEGER NOT NULL)");
        sql.exec("INSERT INTO account_schema (version) VALUES (1)");
        sql.exec(
          "INSERT INTO proposals VALUES ('prop_old', 'ORD-1001', 'k', 1, 'applied', '2026-11-01T00:00:00.000Z', '{}')",
        );
        sql.exec("INSERT INTO synthetic_batches VALUES ('B-old', '{}', '2026-11-01T00:00:00.000Z')");
      });

      migrateAccountStorage(state.storage);

      expect(sql.exec<{ version: number }>("SELECT version FROM account_schema").toArray()).toEqual([
        { version: STORAGE_VERSION },
      ]);
      expect(STORAGE_VERSION).toBeGreaterThan(1);
      expect(tables(sql)).toEqual(
        expect.arrayContaining([
          "account_schema",
          "audit_anchor",
          "capacity_searches",
          "proposals",
          "run_chart",
          "run_intervals",
          "runs",
          "synthetic_batches",
        ]),
      );
      expect(sql.exec("SELECT proposal_id, status FROM proposals").toArray()).toEqual([
        { proposal_id: "prop_old", status: "applied" },
      ]);
      // Version 2 added the outcome column; a batch journaled before it finished long ago.
      expect(sql.exec("SELECT batch_id, outcome FROM synthetic_batches").toArray()).toEqual([
        { batch_id: "B-old", outcome: "completed" },
      ]);
    });
  });

  it("running the migration again changes nothing", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, `schema-again-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      const before = state.storage.sql.exec("SELECT type, name, sql FROM sqlite_master ORDER BY name").toArray();
      migrateAccountStorage(state.storage);
      expect(state.storage.sql.exec("SELECT type, name, sql FROM sqlite_master ORDER BY name").toArray()).toEqual(
        before,
      );
      expect(state.storage.sql.exec("SELECT version FROM account_schema").toArray()).toEqual([
        { version: STORAGE_VERSION },
      ]);
    });
  });
});
