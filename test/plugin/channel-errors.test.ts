import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChannelError } from "../../src/bridge/channel.js";
import { createLogger } from "../../src/common/log.js";
import { OperatorProblems, platformCause, statusKind } from "../../src/plugin/channel-errors.js";

/** A JSON logger whose lines are kept, parsed. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger("info", { pretty: false, destination }), lines };
}

const wrongToken = { key: "401", message: "the bot token is wrong: set THE_TOKEN" };

describe("OperatorProblems", () => {
  it("logs each problem once, as an error naming the channel and the bot", () => {
    const { log, lines } = capturedLog();
    const problems = new OperatorProblems(log, { channel: "telegram", botId: "sales" });
    problems.report(wrongToken);
    problems.report(wrongToken);
    problems.report({ key: "409", message: "another process polls with this token" });
    problems.report(undefined);
    expect(lines.map(({ level, channel, botId, msg }) => ({ level, channel, botId, msg }))).toEqual([
      { level: 50, channel: "telegram", botId: "sales", msg: wrongToken.message },
      { level: 50, channel: "telegram", botId: "sales", msg: "another process polls with this token" },
    ]);
  });

  it("says a problem again after clear, and tells a caller logging its own way whether a key is new", () => {
    const { log, lines } = capturedLog();
    const problems = new OperatorProblems(log, { channel: "telegram" });
    problems.report(wrongToken);
    expect(problems.isNew("401")).toBe(false);
    expect(problems.isNew("other")).toBe(true);
    expect(problems.isNew("other")).toBe(false);
    problems.clear();
    expect(problems.isNew("other")).toBe(true);
    problems.report(wrongToken);
    expect(lines).toHaveLength(2);
    expect(lines[1]).not.toHaveProperty("botId");
  });

  it("keeps count without a logger", () => {
    const problems = new OperatorProblems(undefined, { channel: "slack", botId: "default" });
    expect(() => problems.report(wrongToken)).not.toThrow();
    expect(problems.isNew(wrongToken.key)).toBe(false);
  });
});

describe("platformCause and statusKind", () => {
  it("finds the platform's error behind a ChannelError, or takes the error as it is", () => {
    const platform = Object.assign(new Error("An API error occurred: not_in_channel"), { code: "slack_webapi" });
    expect(platformCause(new ChannelError("rejected", "Slack chat.postMessage", undefined, { cause: platform }))).toBe(
      platform,
    );
    expect(platformCause(platform)).toBe(platform);
    expect(platformCause(new ChannelError("transient", "no cause"))).toBeUndefined();
  });

  it("retries the platform's own trouble (5xx) and nothing else", () => {
    expect([500, 502, 503, 504].map(statusKind)).toEqual(["transient", "transient", "transient", "transient"]);
    // A 429 never gets here: each adapter maps it to rate_limited with the platform's wait first.
    expect([400, 401, 403, 404, 409].map(statusKind)).toEqual([
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
    ]);
  });
});
