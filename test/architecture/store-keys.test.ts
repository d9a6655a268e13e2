import { describe, expect, it } from "vitest";
import * as slack from "../../adapters/slack/store-keys.js";
import * as web from "../../adapters/web/store-keys.js";
import * as core from "../../src/bridge/store/key-prefixes.js";
import * as alerts from "../../src/features/alerts/alert-keys.js";
import * as handoff from "../../src/features/handoff/handoff-keys.js";
import * as viewings from "../../src/features/viewings/viewing-keys.js";
import * as mail from "../../src/mail/outbox-keys.js";

/** Every key file of the store's users, by who owns it. */
const OWNERS: Record<string, Record<string, string>> = { core, mail, handoff, viewings, alerts, slack, web };

/** The key space a constant belongs to, from its name: claims, mail ids, the Redis layout, or Keyv values. */
function spaceOf(name: string): string {
  if (name.includes("CLAIM")) return "claims";
  if (name.endsWith("_MAIL_PREFIX")) return "mail ids";
  if (name.startsWith("REDIS_")) return "redis";
  return "keyv";
}

describe("the keys of the bridge store's users", () => {
  const keys = Object.entries(OWNERS).flatMap(([owner, module]) =>
    Object.entries(module).map(([name, value]) => ({ owner, name, value, space: spaceOf(name) })),
  );

  it("are all found (each owner has at least one)", () => {
    for (const owner of Object.keys(OWNERS)) expect(keys.some((key) => key.owner === owner)).toBe(true);
    expect(keys.every((key) => typeof key.value === "string" && key.value !== "")).toBe(true);
  });

  it("never collide: in each space, no prefix starts another, and no key starts with another owner's prefix", () => {
    const clashes: string[] = [];
    for (const a of keys) {
      for (const b of keys) {
        if (a === b || a.space !== b.space || !b.name.endsWith("_PREFIX")) continue;
        // A prefix's owner may keep a key of its own under it (`handoff:active`, which no conversation key is).
        const allowed = a.owner === b.owner && !a.name.endsWith("_PREFIX");
        if (a.value.startsWith(b.value) && !allowed) clashes.push(`${a.owner}.${a.name} under ${b.owner}.${b.name}`);
      }
    }
    expect(clashes).toEqual([]);
  });
});
