import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";

const holderScript = fileURLToPath(new URL("./work-holder-process.ts", import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve("tsx");
const LEASE_MS = 600;

/**
 * A real process takes a conversation and is killed with SIGKILL mid-work; `store` (this process) must not get the
 * conversation while the holder lives and renews, and must get it after the lease with `resumed`, a larger token,
 * every item and the ledger record the killed holder wrote. `location` is the data directory or the Redis URL.
 */
export async function expectKilledHolderResumed(
  store: BridgeStore,
  location: string,
  namespace: string,
): Promise<void> {
  const conversation = "telegram:bot:42";
  const ids = [1, 2, 3].map((n) => `event:telegram:bot:${n}`);
  for (const [index, id] of ids.entries()) {
    expect(await store.work.enqueue({ id, conversation, payload: { n: index + 1 } }, 60_000)).toBe(true);
  }
  const child = spawn(process.execPath, ["--import", tsxLoader, holderScript, location, namespace, String(LEASE_MS)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let output = "";
    child.stdout.setEncoding("utf8");
    const holding = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: string) => {
        output += chunk;
        if (output.endsWith("\n")) resolve(output.trim());
      });
      child.once("exit", (code) => reject(new Error(`the holder exited with ${code} before it held the conversation`)));
    });
    const [word, held, token] = holding.split(" ");
    expect([word, held]).toEqual(["holding", conversation]);
    // While the holder lives, its renewals keep the conversation from this process.
    expect(await store.work.take(AbortSignal.timeout(LEASE_MS * 3), { leaseMs: LEASE_MS })).toBeUndefined();
    child.kill("SIGKILL");
    await once(child, "exit");
    const lease = await store.work.take(AbortSignal.timeout(10_000), { leaseMs: LEASE_MS });
    expect(lease).toMatchObject({ conversation, resumed: true });
    if (!lease) return;
    expect(lease.token).toBeGreaterThan(Number(token));
    expect((await lease.pending()).map((item) => item.id)).toEqual(ids);
    expect(await lease.readLedger(ids[0] as string)).toEqual({ sent: "part one" });
    await lease.complete(ids);
    await lease.release();
    expect(await store.work.stats()).toEqual({ items: 0, conversations: 0, oldestEnqueuedAt: undefined });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
