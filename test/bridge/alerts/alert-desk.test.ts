import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { AlertDesk, MAX_SEARCHES } from "../../../src/bridge/alerts/alert-desk.js";
import { SavedSearches } from "../../../src/bridge/alerts/saved-searches.js";
import { MemorySets } from "../../../src/bridge/store/memory-leases.js";

function desk() {
  const sets = new MemorySets(() => undefined);
  const searches = new SavedSearches(new Keyv(), sets);
  const alerts = new AlertDesk(searches, () => 1_000);
  const origin = { channel: "telegram", botId: "bot", target: { chatId: "7", isGroup: false } };
  const say = async (text: string) => (await alerts.handle("c1", origin, text))?.text;
  return { searches, say, alerts, origin };
}

describe("alert desk", () => {
  it("leaves other messages to the chatbot", async () => {
    const { say } = desk();
    expect(await say("homes in Austin?")).toBeUndefined();
    expect(await say("please stop sending the brochure")).toBeUndefined();
  });

  it("saves a search through the guided flow, re-asking a question it cannot read", async () => {
    const { say, searches } = desk();
    expect(await say("/alert")).toContain("Which city?");
    expect(await say("Austin")).toContain("For sale or for rent?");
    expect(await say("maybe")).toContain('Please answer "for sale", "for rent" or "any". For sale or for rent?');
    expect(await say("For sale")).toContain("bedrooms");
    expect(await say("three")).toContain("Please answer with a number");
    expect(await say("3")).toContain("Highest price?");
    expect(await say("600k")).toBe(
      "Saved alert 1: 3+ bedrooms for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
    );
    expect(await searches.read("c1")).toMatchObject({
      channel: "telegram",
      searches: [{ criteria: { city: "Austin", saleType: "for_sale", minBeds: 3, maxPrice: 600_000 }, savedAt: 1_000 }],
    });
    expect((await searches.read("c1"))?.flow).toBeUndefined();
    expect(await searches.conversations()).toEqual(["c1"]);
    // The flow is over: the next message is the chatbot's again.
    expect(await say("Austin")).toBeUndefined();
  });

  it("takes any for every question, and cancel ends the flow unsaved", async () => {
    const { say, searches } = desk();
    await say("/alert");
    await say("cancel");
    expect(await searches.read("c1")).toBeUndefined();
    await say("/alert");
    for (const _question of [1, 2, 3]) await say("any");
    expect(await say("Any")).toContain("Saved alert 1: homes.");
  });

  it("lists the searches numbered, removes one, and stop ends them all", async () => {
    const { say, searches, alerts, origin } = desk();
    expect(await say("/alerts")).toBe("You have no alerts. /alert sets one up.");
    for (const city of ["Austin", "Dallas"]) {
      for (const answer of ["/alert", city, "rent", "any", "$2,500"]) await say(answer);
    }
    const list = await alerts.handle("c1", origin, "/alerts@homes_bot");
    expect(list?.text).toBe(
      "Your alerts:\n1. homes for rent in Austin up to $2,500\n2. homes for rent in Dallas up to $2,500\n\n" +
        "Remove one with /alerts remove <number>; /stop ends them all.",
    );
    expect(list?.quickReplies).toEqual(["/alerts remove 1", "/alerts remove 2"]);
    expect(await say("/alerts remove 3")).toBe("There is no alert 3. /alerts lists yours.");
    expect(await say("/alerts remove 1")).toBe("Removed alert 1: homes for rent in Austin up to $2,500.");
    expect((await searches.read("c1"))?.searches).toHaveLength(1);
    expect(await say("Stop")).toBe("All your alerts are stopped. /alert sets up a new one.");
    expect(await searches.read("c1")).toBeUndefined();
    expect(await searches.conversations()).toEqual([]);
    expect(await say("/stop")).toBe("You have no alerts.");
  });

  it(`keeps at most ${MAX_SEARCHES} searches`, async () => {
    const { say } = desk();
    for (let index = 0; index < MAX_SEARCHES; index++) {
      for (const answer of ["/alert", "any", "any", "any", "any"]) await say(answer);
    }
    expect(await say("/alert")).toContain(`You have ${MAX_SEARCHES} alerts`);
  });
});
