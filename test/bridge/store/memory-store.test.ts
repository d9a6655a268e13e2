import { tmpdir } from "node:os";
import { describe } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { bridgeStoreContract, type StoreHarness } from "./contract.js";
import { workQueueContract } from "./work-contract.js";

const memory: StoreHarness = {
  setup: () => {},
  teardown: () => {},
  open: (namespace) => openBridgeStore({ url: "memory://", dataDir: tmpdir(), namespace }),
  shared: false,
};

describe("BridgeStore in memory", () => {
  bridgeStoreContract(memory);
});

describe("work, leases and sets in memory", () => {
  workQueueContract(memory);
});
