// A separate process for the cross-process claim test: opens the store, says "ready", waits for "go" on stdin,
// claims keys 0…count-1 and prints the ones it won as JSON.
import { once } from "node:events";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";

const [dataDir, namespace, count] = process.argv.slice(2);
if (!dataDir || !namespace || !count) throw new Error("usage: claim-race-worker <dataDir> <namespace> <count>");
const store = await openBridgeStore({ dataDir, namespace });
process.stdout.write("ready\n");
await once(process.stdin, "data");
const won: number[] = [];
for (let key = 0; key < Number(count); key++) {
  if (await store.claimOnce(`event:${key}`, 60_000)) won.push(key);
}
await store.close();
process.stdout.write(`${JSON.stringify(won)}\n`);
process.stdin.destroy();
