import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { ChatbotClient } from "../../src/client/index.js";
import { openApiStore } from "../../src/server/store/open-store.js";
import { terminal } from "../support/terminal.js";
import { freePort, until } from "../support/waiting.js";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "chatbridge-cli-"));

describe("the embedded chatbot API from the command line", () => {
  it("keys create prints a new workspace's keys as one JSON line, and stores them", async () => {
    const dir = dataDir();
    const first = terminal({ DATA_DIR: dir });
    expect(await run(["keys", "create", "--name", "agency"], first.io)).toBe(0);
    const lines = first.out().trim().split("\n");
    expect(lines).toHaveLength(1);
    const keys = JSON.parse(lines[0] ?? "");
    expect(Object.keys(keys).sort()).toEqual(["secretKey", "sessionKey"]);
    const second = terminal({ DATA_DIR: dir });
    await run(["keys", "create"], second.io);
    expect(JSON.parse(second.out()).secretKey).not.toBe(keys.secretKey);
    const store = await openApiStore({ dataDir: dir });
    expect((await store.workspaces.bySecretKey(keys.secretKey))?.name).toBe("agency");
    expect((await store.workspaces.bySessionKey(keys.sessionKey))?.name).toBe("agency");
    await store.close();
  });

  it("keys demo creates the demo once and prints the same keys again", async () => {
    const dir = dataDir();
    const a = terminal({ DATA_DIR: dir });
    const b = terminal({ DATA_DIR: dir });
    expect(await run(["keys", "demo"], a.io)).toBe(0);
    expect(await run(["keys", "demo"], b.io)).toBe(0);
    expect(JSON.parse(a.out())).toEqual(JSON.parse(b.out()));
    expect(JSON.parse(a.out()).serialNumber).toMatch(/^[0-9a-f]{32}$/);
  });

  it("the demo uses configured keys and serial number", async () => {
    const t = terminal({
      DATA_DIR: dataDir(),
      CHATBOT_API_KEY: "sk-mine",
      CHATBOT_SESSION_KEY: "ss-mine",
      CHATBOT_SERIAL_NUMBER: "my-bot",
    });
    expect(await run(["keys", "demo"], t.io)).toBe(0);
    expect(JSON.parse(t.out())).toEqual({ secretKey: "sk-mine", sessionKey: "ss-mine", serialNumber: "my-bot" });
  });

  it("ask without CHATBOT_API_URL answers from the embedded demo", async () => {
    const t = terminal({ DATA_DIR: dataDir() });
    expect(await run(["ask", "--json", "homes", "for", "sale", "in", "Austin"], t.io)).toBe(0);
    const answer = JSON.parse(t.out());
    expect(answer.answer).toMatch(/Austin/);
    expect(answer.answerId).toBeGreaterThan(answer.questionId);
    expect(answer.totalToken).toBeGreaterThan(0);
  });

  it("api serves the demo on PORT, prints its keys on first start, and stops cleanly", async () => {
    const port = await freePort();
    const dir = dataDir();
    const t = terminal({ DATA_DIR: dir, PORT: String(port), LOG_LEVEL: "silent" });
    const exit = run(["api"], t.io);
    const banner = await until(() => (t.out().includes("secret key") ? t.out() : undefined));
    const secretKey = /secret key (\S+)/.exec(banner)?.[1] ?? "";
    const serial = /chatbot ([0-9a-f]{32})/.exec(banner)?.[1] ?? "";
    expect(banner).toContain("created the demo");
    expect(secretKey).toMatch(/^sk_/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const client = new ChatbotClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: secretKey });
    expect((await client.listModels()).length).toBeGreaterThan(0);
    expect(await client.createSession(serial)).toBeGreaterThan(0);
    await client.close();
    t.io.signals.emit("terminate");
    expect(await exit).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    // A second start finds the demo again and masks its keys.
    const again = terminal({ DATA_DIR: dir, PORT: String(port), LOG_LEVEL: "silent" });
    const second = run(["api"], again.io);
    const banner2 = await until(() => (again.out().includes("secret key") ? again.out() : undefined));
    expect(banner2).toContain(`chatbot ${serial}`);
    expect(banner2).not.toContain(secretKey);
    again.io.signals.emit("interrupt");
    expect(await second).toBe(0);
  });

  it("api ends the listing change feeds cleanly when it stops, after announcing a change on them", async () => {
    const port = await freePort();
    const t = terminal({ DATA_DIR: dataDir(), PORT: String(port), LOG_LEVEL: "silent" });
    const exit = run(["api"], t.io);
    const banner = await until(() => (t.out().includes("session key") ? t.out() : undefined));
    const client = new ChatbotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: /secret key (\S+)/.exec(banner)?.[1],
      sessionKey: /session key (\S+)/.exec(banner)?.[1],
    });
    const serial = /chatbot ([0-9a-f]{32})/.exec(banner)?.[1] ?? "";
    const changes = await client.listingChanges(serial);
    const [listing] = (await client.listListings({ SerialNumber: serial, PageNumber: 1, PageSize: 1 })).List;
    await client.deleteListings({ SerialNumber: serial, Keys: [listing?.MLSNumber ?? ""], KeyType: "MLSNumber" });
    expect(await changes.next()).toEqual({
      done: false,
      value: { SerialNumber: serial, MLSNumber: listing?.MLSNumber, Kind: "delete" },
    });
    t.io.signals.emit("terminate");
    // Ended by the server, not cut: the stream's last chunk came, so the iteration ends without an error.
    expect(await changes.next()).toEqual({ done: true, value: undefined });
    expect(await exit).toBe(0);
    await client.close();
  });

  it("start serves the web chat with the embedded API, lists the channels, and stops cleanly", async () => {
    const port = await freePort();
    const t = terminal({ DATA_DIR: dataDir(), PORT: String(port), LOG_LEVEL: "silent", STORE_URL: "memory://" });
    const exit = run(["start"], t.io);
    const banner = await until(() => (t.out().includes("Open the web chat") ? t.out() : undefined));
    expect(banner).toContain("chatbot API: embedded");
    expect(banner).toMatch(/✓ web chat: enabled/);
    expect(banner).toMatch(/✗ Telegram: disabled — .*TELEGRAM_BOT_TOKEN/);
    expect(banner).toContain("✗ talk to a human: off — set SMTP_URL and MAIL_FROM");
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    t.io.signals.emit("terminate");
    expect(await exit).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("the chatbridge executable exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "api"], {
      env: { ...process.env, DATA_DIR: dataDir(), PORT: String(port), LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    await until(() => (out.includes("listens") ? true : undefined), 20_000);
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 30_000);
});
