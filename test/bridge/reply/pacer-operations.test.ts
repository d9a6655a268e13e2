import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChannelError, type ChannelLimits } from "../../../src/bridge/channel.js";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { drive } from "./fake-channel.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const PLENTY = { perSecond: 100, burst: 100 };

/** A Slack-like workspace: chats and the bot have plenty, edits are scarce (1 a second, burst 2). */
const source: { limits: ChannelLimits } = {
  limits: {
    perChat: PLENTY,
    perGroup: PLENTY,
    perBot: PLENTY,
    perOperation: { edit: { perSecond: 1, burst: 2 } },
    minUpdateIntervalMs: { private: 0, group: 0 },
  },
};

const target = (id: number) => ({ chatId: String(id), isGroup: false });
const EXACT = { jitterMs: 0 };

describe("Pacer with per-operation budgets", () => {
  it("keeps finals of one operation within its budget while other operations go on", async () => {
    const pacer = new Pacer(source, EXACT);
    const t0 = Date.now();
    const edits: number[] = [];
    const sends: number[] = [];
    const all = [
      ...Array.from({ length: 5 }, (_, k) =>
        pacer.schedule(target(k), "final", async () => edits.push(Date.now() - t0), undefined, { operation: "edit" }),
      ),
      ...Array.from({ length: 5 }, (_, k) =>
        pacer.schedule(target(10 + k), "final", async () => sends.push(Date.now() - t0), undefined, {
          operation: "send",
        }),
      ),
    ];
    await drive(Promise.all(all), 10);
    expect(edits).toEqual([0, 0, 1000, 2000, 3000]);
    // Sends have no budget of their own: they wait only behind the edit finals queued before them.
    expect(Math.max(...sends)).toBeLessThanOrEqual(3000);
  });

  it("skips an update whose operation budget is short instead of waiting for it", async () => {
    const pacer = new Pacer(source, EXACT);
    const ran: string[] = [];
    const edit = (name: string) =>
      pacer.schedule(target(1), "update", async () => ran.push(name), {}, { operation: "edit" });
    // Updates keep one token for finals: with a burst of 2, one update goes, the next is skipped.
    expect(await drive(edit("a"))).toBe(1);
    expect(await drive(edit("b"))).toBeUndefined();
    expect(ran).toEqual(["a"]);
  });

  it("tells an update skipped for its operation's budget so, and not one that a newer update replaced", async () => {
    const pacer = new Pacer(source, EXACT);
    const told: string[] = [];
    const edit = (name: string, stream: object) =>
      pacer.schedule(target(5), "update", async () => name, stream, {
        operation: "edit",
        onShort: () => told.push(name),
      });
    const answer = {};
    // Offered together for one answer: the second replaces the first before it goes, which is no shortage.
    const replaced = edit("replaced", answer);
    const newer = edit("newer", answer);
    expect(await drive(replaced)).toBeUndefined();
    expect(await drive(newer)).toBe("newer");
    expect(told).toEqual([]);
    // One token is left and kept for finals: the next update is skipped as short, and told.
    expect(await drive(edit("short", {}))).toBeUndefined();
    expect(told).toEqual(["short"]);
  });

  it("lets a prepaid final through without its own token, and a prepaying update only when both can be paid", async () => {
    const pacer = new Pacer(source, EXACT);
    const ran: string[] = [];
    const firstPost = (name: string) =>
      pacer.schedule(target(2), "update", async () => ran.push(name), {}, { operation: "send", prepay: "edit" });
    expect(await drive(firstPost("post 1"))).toBe(1);
    // One edit token left, kept for finals: the next answer is not posted early.
    expect(await drive(firstPost("post 2"))).toBeUndefined();
    const t0 = Date.now();
    let finishedAt = -1;
    await drive(
      pacer.schedule(
        target(2),
        "final",
        async () => {
          finishedAt = Date.now() - t0;
        },
        undefined,
        { operation: "edit", prepaid: true },
      ),
    );
    expect(finishedAt).toBe(0);
    expect(ran).toEqual(["post 1"]);
  });

  it("leaves an operation's opening share to the answers still to open: edits of answers on screen stop first", async () => {
    // Ten edits in any minute, one kept for finals, and four more left to openings by the edits that only grow.
    const pacer = new Pacer(
      {
        limits: {
          ...source.limits,
          perOperation: { edit: { max: 10, windowMs: 60_000 } },
          openingShare: { edit: 4 },
        },
      },
      EXACT,
    );
    const ran: string[] = [];
    const grow = (k: number) =>
      pacer.schedule(target(100 + k), "update", async () => ran.push(`grow ${k}`), {}, { operation: "edit" });
    const open = (k: number) =>
      pacer.schedule(
        target(200 + k),
        "update",
        async () => ran.push(`open ${k}`),
        {},
        {
          operation: "send",
          prepay: "edit",
          opening: true,
        },
      );
    // Growing edits go while more than the share and the finals' reserve are left: 10 - 4 - 1 = 5 of them.
    for (let k = 0; k < 7; k++) await drive(grow(k));
    expect(ran).toEqual(["grow 0", "grow 1", "grow 2", "grow 3", "grow 4"]);
    // Openings still find their edit (paid now, for the edit that will finish them): the share, not the reserve.
    for (let k = 0; k < 6; k++) await drive(open(k));
    expect(ran.slice(5)).toEqual(["open 0", "open 1", "open 2", "open 3"]);
    // And a final still has the reserve.
    expect(
      await drive(pacer.schedule(target(300), "final", async () => "final", undefined, { operation: "edit" })),
    ).toBe("final");
  });

  it("pauses only the limited operation when the platform rate-limits one method", async () => {
    const pacer = new Pacer(source, EXACT);
    const t0 = Date.now();
    let editAt = -1;
    let sendAt = -1;
    let refused = false;
    const limited = pacer.schedule(
      target(3),
      "final",
      async () => {
        if (!refused) {
          refused = true;
          throw new ChannelError("rate_limited", "chat.update tier", 5000, { scope: "bot" });
        }
        editAt = Date.now() - t0;
      },
      undefined,
      { operation: "edit" },
    );
    const other = pacer.schedule(
      target(4),
      "final",
      async () => {
        sendAt = Date.now() - t0;
      },
      undefined,
      { operation: "send" },
    );
    await drive(Promise.all([limited, other]), 10);
    expect(sendAt).toBeLessThan(100);
    expect(editAt).toBeGreaterThanOrEqual(5000);
  });
});
