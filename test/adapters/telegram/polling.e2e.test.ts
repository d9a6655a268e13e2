import type { Api } from "grammy/web";
import { describe, expect, it } from "vitest";
import { TelegramInbound } from "../../../adapters/telegram/delivery.js";
import { TelegramPoller } from "../../../adapters/telegram/polling.js";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import type { MalformedPayload } from "../../../src/bridge/malformed-payloads.js";
import { until } from "../../support/waiting.js";
import { FIXTURE_BOT, privateUpdateIn } from "./telegram-fixtures.js";

/** A Bot API whose getUpdates serves `batches` in turn, then nothing; it records the offsets asked for. */
function scriptedApi(batches: unknown[][]) {
  const offsets: (number | undefined)[] = [];
  const api = {
    deleteWebhook: async () => true,
    getUpdates: async (params: { offset?: number }) => {
      offsets.push(params.offset);
      const batch = batches.shift();
      if (batch) return batch;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return [];
    },
  } as unknown as Api;
  return { api, offsets };
}

function inbound() {
  const accepted: InboundMessage[] = [];
  const reports: MalformedPayload[] = [];
  const telegram = new TelegramInbound({
    sink: {
      accept: async (message) => {
        accepted.push(message);
        return "accepted";
      },
      cancel: () => {},
    },
    bot: FIXTURE_BOT,
    botId: "default",
    onMalformed: (report) => reports.push(report),
  });
  return { telegram, accepted, reports };
}

describe("TelegramPoller with malformed updates", () => {
  it("reports them, confirms them with the batch, and goes on with the next updates", async () => {
    const valid = { ...privateUpdateIn(4242, { text: "hello" }), update_id: 8 };
    const { api, offsets } = scriptedApi([
      [{ update_id: "abc" }, null, 5, { update_id: 7, message: { chat: { id: "x" } } }, valid],
      [{ ...privateUpdateIn(4243, { text: "again" }), update_id: 9 }],
    ]);
    const { telegram, accepted, reports } = inbound();
    const poller = new TelegramPoller({ api, deliver: (update) => telegram.deliver(update), backoffMs: 10 });
    poller.start();
    await until(() => (accepted.length >= 2 ? true : undefined));
    await poller.stop();
    expect(accepted.map((message) => message.text)).toEqual(["hello", "again"]);
    expect(reports.map((report) => report.reason)).toEqual(["schema", "schema", "schema", "schema"]);
    // The malformed updates were confirmed with update 8 (offset 9), and update 9 after them.
    expect(offsets.slice(0, 3)).toEqual([undefined, 9, 10]);
  });

  it("backs off instead of reading again at once a batch it cannot confirm", async () => {
    const unconfirmable = [{ update_id: "abc" }, null];
    const { api, offsets } = scriptedApi(Array.from({ length: 100 }, () => unconfirmable));
    const { telegram, reports } = inbound();
    const poller = new TelegramPoller({ api, deliver: (update) => telegram.deliver(update), backoffMs: 100 });
    poller.start();
    await new Promise((resolve) => setTimeout(resolve, 350));
    await poller.stop();
    // 0, 100, 200 ms: three reads (and the one stop() makes) instead of a hundred in a tight loop.
    expect(offsets.length).toBeLessThanOrEqual(5);
    expect(reports.length).toBeGreaterThanOrEqual(4);
  });
});
