import { createHmac, randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { PluginStore } from "../../src/plugin/channel-plugin.js";
import { sameSecret } from "../../src/plugin/plugin-api.js";
import { WEB_VISITOR_KEY, WEB_VISITOR_KEY_CLAIM } from "./store-keys.js";

/** A visitor token as {@link VisitorIdentity.issue} makes it: `<id>.<signature>`. */
export const visitorToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{43}$/, "must be a visitor token from POST /webchat/visitors");

/**
 * Web chat visitors' identities, issued by the bridge rather than chosen by the browser: a random id and its
 * HMAC-SHA256 under a key of the deployment. A page can only read and write the conversation of a token the bridge
 * gave it, so nobody reaches another visitor's conversation by naming its id. Every instance sharing the store (or
 * WEB_CHAT_SECRET) accepts the tokens of every other.
 */
export class VisitorIdentity {
  constructor(private readonly key: Buffer) {}

  /** A new visitor's token, for a random id. */
  issue(): string {
    return this.tokenOf(randomBytes(18).toString("base64url"));
  }

  /** The token of a given visitor id (16–64 letters, digits, - or _). */
  tokenOf(id: string): string {
    return `${id}.${this.#sign(id)}`;
  }

  /** The visitor id of a token this deployment issued (compared in constant time), or undefined. */
  verify(token: string): string | undefined {
    const dot = token.indexOf(".");
    if (dot < 0) return undefined;
    const id = token.slice(0, dot);
    return sameSecret(this.#sign(id), token.slice(dot + 1)) ? id : undefined;
  }

  #sign(id: string): string {
    return createHmac("sha256", this.key).update(`chatbridge-visitor:${id}`).digest("base64url");
  }
}

/**
 * The key visitors' tokens are signed with: WEB_CHAT_SECRET when set; otherwise one generated once per store and
 * kept in it, so that every instance on the store (and every restart of a durable one) accepts the same tokens.
 * One process writes it (the holder of a short claim); the others read it once written.
 * @throws Error when the store cannot be read, or no key appears within a few seconds.
 */
export async function visitorKey(store: PluginStore, configured: string | undefined): Promise<Buffer> {
  if (configured) return Buffer.from(configured, "utf8");
  for (let attempt = 0; attempt < 100; attempt++) {
    const kept = await store.keyv.get<string>(WEB_VISITOR_KEY);
    if (typeof kept === "string" && kept !== "") return Buffer.from(kept, "base64url");
    // The claim expires: a writer that died before writing leaves the next start to write it.
    if (await store.claimOnce(WEB_VISITOR_KEY_CLAIM, 10_000)) {
      const key = randomBytes(32);
      await store.keyv.set(WEB_VISITOR_KEY, key.toString("base64url"));
      return key;
    }
    await sleep(100);
  }
  throw new Error("the web chat's visitor key did not appear in the store: set WEB_CHAT_SECRET, or check the store");
}
