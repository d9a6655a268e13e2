import { describe } from "vitest";
import { openApiStore } from "../../../src/server/store/open-store.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { apiStoreContract } from "./store-contract.js";

describe("ApiStore on SQLite", () => {
  const dataDir = tempDataDir();
  apiStoreContract({
    open: (now) => openApiStore({ dataDir, now }),
    dispose: async () => removeDataDir(dataDir),
  });
});
