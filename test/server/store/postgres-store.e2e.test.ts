import { describe } from "vitest";
import { openApiStore } from "../../../src/server/store/open-store.js";
import { dropSchema, freshSchemaName, postgresForTests, TEST_POSTGRES_URL } from "../../support/postgres.js";
import { apiStoreContract } from "./store-contract.js";

const postgres = await postgresForTests();

describe.skipIf(!postgres.available)("ApiStore on PostgreSQL", () => {
  const schema = freshSchemaName();
  apiStoreContract({
    open: (now) => openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir: ":memory:", schema, now }),
    dispose: () => dropSchema(schema),
  });
});
