import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readUpdate } from "../../adapters/telegram/schema.js";
import { malformedPayloadReporter } from "../../src/bridge/malformed-payloads.js";
import { createBridgeMetrics } from "../../src/bridge/metrics.js";
import { payloadShape } from "../../src/bridge/payload-shape.js";
import { createLogger } from "../../src/common/log.js";

function capture(level: "info" | "error" = "info") {
  const lines: string[] = [];
  const log = createLogger(level, {
    pretty: false,
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  return { log, lines };
}

describe("payloadShape", () => {
  it("keeps keys and types, never values", () => {
    const shape = payloadShape({
      update_id: 1,
      message: { chat: { id: "abc" }, text: "my secret text", entities: [{ offset: 0 }, null], ok: true, x: null },
    });
    expect(shape).toEqual({
      update_id: "number",
      message: {
        chat: { id: "string" },
        text: "string",
        entities: [{ offset: "number" }, "null"],
        ok: "boolean",
        x: "null",
      },
    });
    expect(JSON.stringify(shape)).not.toMatch(/abc|secret/);
  });

  it("stays small on huge, wide and deep payloads", () => {
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, n) => [`k${n}`, n]));
    const wideShape = payloadShape(wide) as Record<string, unknown>;
    expect(Object.keys(wideShape)).toHaveLength(26);
    expect(wideShape["…"]).toBe("975 more keys");
    let deep: unknown = "bottom";
    for (let n = 0; n < 10_000; n++) deep = [deep];
    expect(JSON.stringify(payloadShape(deep)).length).toBeLessThan(100);
    expect(payloadShape(Array.from({ length: 500 }, () => 1))).toEqual(["number", "number", "number", "…497 more"]);
    const longKey = payloadShape({ ["k".repeat(10_000)]: 1 }) as Record<string, unknown>;
    expect(Object.keys(longKey)[0]).toHaveLength(41);
    expect(payloadShape(JSON.parse('{"__proto__":{"polluted":1}}'))).toEqual(
      JSON.parse('{"__proto__":{"polluted":"number"}}'),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("malformedPayloadReporter", () => {
  it("counts each payload by channel and reason and logs it once with its shape and what did not fit", async () => {
    const { log, lines } = capture();
    const metrics = createBridgeMetrics();
    const report = malformedPayloadReporter(log, metrics.malformedPayloads);
    const body = { update_id: 5, message: { message_id: 1, chat: { id: "secret-chat-abc", type: "private" } } };
    const read = readUpdate(body);
    expect(read.ok).toBe(false);
    report({ channel: "telegram", botId: "default", reason: "schema", body, issues: read.ok ? [] : read.issues });
    report({ channel: "slack", botId: "sales", reason: "unreadable" });
    expect(lines).toHaveLength(2);
    const line = JSON.parse(lines[0] as string);
    expect(line).toMatchObject({
      level: 40,
      channel: "telegram",
      botId: "default",
      reason: "schema",
      shape: { update_id: "number", message: { message_id: "number", chat: { id: "string", type: "string" } } },
      problems: ["message.chat.id: Invalid input: expected number, received string"],
    });
    expect(lines.join("")).not.toContain("secret-chat-abc");
    const text = await metrics.registry.metrics();
    expect(text).toContain('chatbridge_malformed_payloads_total{channel="telegram",reason="schema"} 1');
    expect(text).toContain('chatbridge_malformed_payloads_total{channel="slack",reason="unreadable"} 1');
  });

  it("only counts when warnings are not logged", async () => {
    const { log, lines } = capture("error");
    const metrics = createBridgeMetrics();
    malformedPayloadReporter(
      log,
      metrics.malformedPayloads,
    )({ channel: "whatsapp", botId: "default", reason: "schema", body: {} });
    expect(lines).toEqual([]);
    expect(await metrics.registry.metrics()).toContain(
      'chatbridge_malformed_payloads_total{channel="whatsapp",reason="schema"} 1',
    );
  });
});
