import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";

function capture() {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on("data", (chunk: Buffer) => lines.push(...chunk.toString().trim().split("\n")));
  return { stream, lines };
}

describe("logger", () => {
  it("writes pino JSON at the configured level", () => {
    const { stream, lines } = capture();
    const log = createLogger("warn", { destination: stream, pretty: false });
    log.info("hidden");
    log.warn({ chat: 1 }, "shown");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ level: 40, msg: "shown", chat: 1, name: "chatbridge" });
  });

  it("never prints the configured secrets", () => {
    const { stream, lines } = capture();
    const log = createLogger("debug", { destination: stream, pretty: false });
    const config = loadConfig(
      { CHATBOT_API_KEY: "sk-very-secret", CHATBOT_SESSION_KEY: "sess-very-secret" },
      { envFile: undefined },
    );
    log.debug({ config }, "configuration");
    log.info({ headers: { authorization: "sk-very-secret", "chatrobot-sessionkey": "sess-very-secret" } }, "request");
    log.info({ request: { headers: { authorization: "sk-very-secret" } } }, "nested");
    const output = lines.join("\n");
    expect(lines).toHaveLength(3);
    expect(output).not.toContain("very-secret");
    expect(output).toContain("[redacted]");
  });

  it("writes human-readable lines for a terminal, through pino-pretty required on demand", async () => {
    const { stream, lines } = capture();
    const log = createLogger("info", { destination: stream, pretty: true });
    log.warn({ chat: 1 }, "shown on a terminal");
    await new Promise((resolve) => setImmediate(resolve));
    const output = lines.join("\n");
    expect(output).toContain("WARN");
    expect(output).toContain("shown on a terminal");
    expect(() => JSON.parse(lines[0] ?? "")).toThrow();
  });
});
