import { describe, expect, it } from "vitest";
import type { Chatbot } from "../../../src/server/domain.js";
import { newChatbot, type StoreGetter } from "./fixtures.js";

const at = (iso: string) => new Date(iso);

/** The daily digests' claims: opened once, claimed by one, settled only by the attempt that claimed. */
export function digestsContract(store: StoreGetter): void {
  describe("digests", () => {
    const dueOf = async (chatbot: Chatbot, now: string) =>
      (await store().digests.due(at(now), 1000)).filter((digest) => digest.chatbotId === chatbot.id);

    it("opens a digest once, pending and due from the time it was opened", async () => {
      const chatbot = await newChatbot(store());
      const key = { chatbotId: chatbot.id, day: "2024-05-01", kind: "ChatLogs" as const };

      await store().digests.open(key, at("2024-05-02T05:00:00Z"));
      await Promise.all([1, 2, 3].map(() => store().digests.open(key, at("2024-05-02T05:01:00Z"))));

      expect(await dueOf(chatbot, "2024-05-02T04:59:59Z")).toEqual([]);
      expect(await dueOf(chatbot, "2024-05-02T05:00:00Z")).toEqual([
        {
          id: expect.any(Number),
          ...key,
          state: "pending",
          attempts: 0,
          nextAttemptAt: at("2024-05-02T05:00:00Z"),
          note: "",
          createdAt: at("2024-05-02T05:00:00Z"),
        },
      ]);
    });

    it("keeps one digest per chatbot, day and kind", async () => {
      const chatbot = await newChatbot(store());
      const other = await newChatbot(store());
      const now = at("2024-05-02T05:00:00Z");
      for (const chatbotId of [chatbot.id, other.id]) {
        for (const day of ["2024-05-01", "2024-05-02"]) {
          for (const kind of ["ChatLogs", "Leads"] as const) await store().digests.open({ chatbotId, day, kind }, now);
        }
      }

      const due = await dueOf(chatbot, "2024-05-02T05:00:00Z");
      expect(due.map(({ day, kind }) => `${day} ${kind}`).sort()).toEqual([
        "2024-05-01 ChatLogs",
        "2024-05-01 Leads",
        "2024-05-02 ChatLogs",
        "2024-05-02 Leads",
      ]);
    });

    it("lets one claim win, holds the digest, and lets it go when the hold lapses", async () => {
      const chatbot = await newChatbot(store());
      await store().digests.open({ chatbotId: chatbot.id, day: "2024-05-01", kind: "Leads" }, at("2024-05-02T05:00Z"));
      const [digest] = await dueOf(chatbot, "2024-05-02T05:00:00Z");
      const id = digest?.id ?? -1;

      const claims = await Promise.all(
        [1, 2, 3, 4].map(() => store().digests.claim(id, at("2024-05-02T05:00:10Z"), at("2024-05-02T05:05:10Z"))),
      );
      const won = claims.filter((claim) => claim !== undefined);
      expect(won).toEqual([
        expect.objectContaining({ id, state: "pending", attempts: 1, nextAttemptAt: at("2024-05-02T05:05:10Z") }),
      ]);
      expect(await dueOf(chatbot, "2024-05-02T05:05:09Z")).toEqual([]);
      expect(await store().digests.claim(id, at("2024-05-02T05:05:09Z"), at("2024-05-02T05:10:09Z"))).toBeUndefined();

      // The claimer never settled (it died): once the hold lapses, another attempt may claim it.
      const retaken = await store().digests.claim(id, at("2024-05-02T05:05:10Z"), at("2024-05-02T05:10:10Z"));
      expect(retaken).toMatchObject({ id, attempts: 2 });
    });

    it("settles only from the attempt that holds the claim, and retries at the given time", async () => {
      const chatbot = await newChatbot(store());
      await store().digests.open(
        { chatbotId: chatbot.id, day: "2024-05-01", kind: "ChatLogs" },
        at("2024-05-02T05:00Z"),
      );
      const [opened] = await dueOf(chatbot, "2024-05-02T05:00:00Z");
      const id = opened?.id ?? -1;
      const claim = (now: string, until: string) => store().digests.claim(id, at(now), at(until));

      await claim("2024-05-02T05:00:00Z", "2024-05-02T05:05:00Z");
      const retryAt = at("2024-05-02T05:06:00Z");
      await store().digests.settle(
        id,
        1,
        { state: "pending", retryAt, note: "451 try later" },
        at("2024-05-02T05:00:01Z"),
      );
      expect(await dueOf(chatbot, "2024-05-02T05:05:59Z")).toEqual([]);
      expect(await dueOf(chatbot, "2024-05-02T05:06:00Z")).toEqual([
        expect.objectContaining({ id, state: "pending", attempts: 1, nextAttemptAt: retryAt, note: "451 try later" }),
      ]);

      await claim("2024-05-02T05:06:00Z", "2024-05-02T05:11:00Z");
      // A stale attempt (number 1) cannot settle what attempt 2 holds.
      await store().digests.settle(id, 1, { state: "failed", note: "stale" }, at("2024-05-02T05:06:01Z"));
      expect(await claim("2024-05-02T05:11:00Z", "2024-05-02T05:16:00Z")).toMatchObject({ attempts: 3 });
      await store().digests.settle(id, 3, { state: "sent", note: "" }, at("2024-05-02T05:11:01Z"));

      expect(await dueOf(chatbot, "2030-01-01T00:00:00Z")).toEqual([]);
      expect(await claim("2030-01-01T00:00:00Z", "2030-01-01T00:05:00Z")).toBeUndefined();
    });

    it("go with their chatbot", async () => {
      const chatbot = await newChatbot(store());
      await store().digests.open({ chatbotId: chatbot.id, day: "2024-05-01", kind: "Leads" }, at("2024-05-02T05:00Z"));

      await store().chatbots.remove(chatbot.id);

      expect(await dueOf(chatbot, "2024-05-02T05:00:00Z")).toEqual([]);
    });
  });
}
