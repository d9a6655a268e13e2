import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/bridge/inbound.js";
import { nextBatch } from "../../src/bridge/next-batch.js";
import type { WorkItem } from "../../src/bridge/store/work-queue.js";
import { messagePayload } from "../../src/bridge/work-payload.js";

const WINDOW = 1_000;

/** A message item recorded at `at`, optionally a piece of `album`. */
function message(id: string, at: number, album?: string): WorkItem {
  const inbound: InboundMessage = {
    channel: "telegram",
    botId: "default",
    eventId: id,
    target: { chatId: "1", isGroup: false },
    user: { id: "1" },
    text: id,
    media: [],
    album,
    receivedAt: new Date(at),
  };
  return { id, conversation: "c", payload: messagePayload(inbound), enqueuedAt: at };
}

/** A handoff event item. */
function handoffEvent(id: string, at: number): WorkItem {
  return {
    id,
    conversation: "c",
    enqueuedAt: at,
    payload: {
      kind: "handoff",
      action: { type: "resume" },
      target: { chatId: "1", isGroup: false },
      channel: "telegram",
      botId: "default",
    },
  };
}

const ids = (choice: ReturnType<typeof nextBatch>) =>
  choice?.kind === "answer" ? choice.items.map((i) => i.id) : choice;

describe("nextBatch", () => {
  it("answers one message at a time in queue mode and everything waiting in merge mode", () => {
    const items = [message("a", 0), message("b", 10), message("c", 20)];
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 5_000 }))).toEqual(["a"]);
    expect(ids(nextBatch(items, { mode: "merge", albumWindowMs: WINDOW, now: 5_000 }))).toEqual(["a", "b", "c"]);
  });

  it("has nothing to do without items", () => {
    expect(nextBatch([], { mode: "queue", albumWindowMs: WINDOW, now: 0 })).toBeUndefined();
  });

  it("keeps an album's pieces together, in queue mode too", () => {
    const items = [message("p1", 0, "A"), message("p2", 100, "A"), message("next", 200)];
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 300 }))).toEqual(["p1", "p2"]);
  });

  it("waits for more of an album whose last piece came less than a window ago, when nothing followed it", () => {
    const items = [message("p1", 0, "A"), message("p2", 400, "A")];
    expect(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 600 })).toEqual({ kind: "wait", waitMs: 800 });
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 1_400 }))).toEqual(["p1", "p2"]);
  });

  it("waits at most four windows after an album's first piece, however long pieces keep coming", () => {
    const items = [message("p1", 0, "A"), message("p2", 3_500, "A")];
    expect(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 3_600 })).toEqual({
      kind: "wait",
      waitMs: 400,
    });
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 4_000 }))).toEqual(["p1", "p2"]);
  });

  it("does not wait when the album window is 0", () => {
    const items = [message("p1", 0, "A")];
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: 0, now: 1 }))).toEqual(["p1"]);
  });

  it("lets a message after an album close it at once", () => {
    const items = [message("p1", 0, "A"), message("text", 10)];
    expect(ids(nextBatch(items, { mode: "queue", albumWindowMs: WINDOW, now: 20 }))).toEqual(["p1"]);
  });

  it("merges an album with the messages around it in merge mode, waiting while it may grow", () => {
    const items = [message("hi", 0), message("p1", 10, "A")];
    expect(nextBatch(items, { mode: "merge", albumWindowMs: WINDOW, now: 20 })).toEqual({ kind: "wait", waitMs: 990 });
    expect(ids(nextBatch(items, { mode: "merge", albumWindowMs: WINDOW, now: 1_010 }))).toEqual(["hi", "p1"]);
  });

  it("answers a handoff event on its own, and ends a run of messages before one", () => {
    const items = [handoffEvent("h", 0), message("a", 10)];
    expect(ids(nextBatch(items, { mode: "merge", albumWindowMs: WINDOW, now: 20 }))).toEqual(["h"]);
    const later = [message("a", 0), message("b", 5), handoffEvent("h", 10), message("c", 20)];
    expect(ids(nextBatch(later, { mode: "merge", albumWindowMs: WINDOW, now: 30 }))).toEqual(["a", "b"]);
  });

  it("answers an item that cannot be read on its own, so that the conversation goes on", () => {
    const damaged: WorkItem = { id: "x", conversation: "c", payload: { kind: "what" }, enqueuedAt: 0 };
    expect(ids(nextBatch([damaged, message("a", 1)], { mode: "merge", albumWindowMs: WINDOW, now: 2 }))).toEqual(["x"]);
  });
});
