import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { ApiStore } from "../../../src/server/store/api-store.js";
import type { Clock } from "../../../src/server/store/codecs.js";
import { accountsContract } from "./accounts-contract.js";
import { conversationsContract } from "./conversations-contract.js";
import { digestsContract } from "./digests-contract.js";
import { filesContract } from "./files-contract.js";
import { PinnableClock } from "./fixtures.js";
import { leadsContract } from "./leads-contract.js";
import { listingsContract } from "./listings-contract.js";
import { searchContract } from "./search-contract.js";

/** How a test file provides a database: open a fresh store stamping with `now`, and clean up after it is closed. */
export interface StoreHarness {
  open(now: Clock): Promise<ApiStore>;
  dispose(): Promise<void>;
}

/**
 * Registers the whole ApiStore contract in the calling `describe`, so the same tests run on every database.
 * One store serves the file; each test makes its own workspace and chatbot, so tests do not see each other.
 */
export function apiStoreContract(harness: StoreHarness): void {
  const clock = new PinnableClock();
  let opened: ApiStore | undefined;
  beforeAll(async () => {
    opened = await harness.open(clock.now);
  });
  afterEach(() => {
    clock.release();
  });
  afterAll(async () => {
    await opened?.close();
    await harness.dispose();
  });
  const store = (): ApiStore => {
    if (opened === undefined) throw new Error("the store did not open");
    return opened;
  };

  it("answers a ping", async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });
  accountsContract(store);
  conversationsContract(store, clock);
  listingsContract(store, clock);
  searchContract(store);
  filesContract(store);
  leadsContract(store, clock);
  digestsContract(store);
}
