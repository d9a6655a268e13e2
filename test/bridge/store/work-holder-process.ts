// A separate process for the crash tests: opens the store (a data directory for SQLite, or a redis:// URL), takes
// a conversation with a lease of <leaseMs>, writes the ledger record of its first item, prints
// "holding <conversation> <token>" and keeps the lease (renewing it) until it is killed.
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";

const [location, namespace, leaseMs] = process.argv.slice(2);
if (!location || !namespace || !leaseMs)
  throw new Error("usage: work-holder-process <dataDir|redis-url> <namespace> <leaseMs>");
const store = await openBridgeStore(
  location.startsWith("redis://") ? { url: location, dataDir: "unused", namespace } : { dataDir: location, namespace },
);
const lease = await store.work.take(AbortSignal.timeout(10_000), { leaseMs: Number(leaseMs), holder: "child" });
if (!lease) throw new Error("no conversation to take");
const [first] = await lease.pending(1);
if (!first) throw new Error("a conversation without items was offered");
await lease.writeLedger(first.id, { sent: "part one" });
process.stdout.write(`holding ${lease.conversation} ${lease.token}\n`);
// The lease's renewal timers do not keep a process alive on their own; this does, until the kill.
setInterval(() => {}, 60_000);
