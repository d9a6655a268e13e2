import { tmpdir } from "node:os";
import { describe } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { bridgeStoreContract } from "./contract.js";

describe("BridgeStore in memory", () => {
  bridgeStoreContract({
    setup: () => {},
    teardown: () => {},
    open: (namespace) => openBridgeStore({ url: "memory://", dataDir: tmpdir(), namespace }),
    shared: false,
  });
});
