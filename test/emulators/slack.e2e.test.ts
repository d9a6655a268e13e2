import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { SocketModeClient } from "@slack/socket-mode";
import { ErrorCode, LogLevel, type WebAPIPlatformError, type WebAPIRateLimitedError, WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { SlackEmulator, type SlackLimits } from "./slack.js";

/** Limits no test outside the rate-limit ones reaches. */
const GENEROUS: Partial<SlackLimits> = {
  methods: {},
  postPerChannel: { max: 1000, windowMs: 1000 },
  postPerWorkspace: { max: 1000, windowMs: 1000 },
};

const started: SlackEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

/** An emulator and a client of it. */
async function start(limits: Partial<SlackLimits> = GENEROUS) {
  const emulator = await SlackEmulator.start({ limits });
  started.push(emulator);
  return { emulator, client: clientOf(emulator, emulator.token) };
}

/**
 * A WebClient of the emulator that fails at once on 429s instead of waiting; it logs errors only, as some tests post
 * without `text` on purpose, which WebClient warns about.
 */
const clientOf = (emulator: SlackEmulator, token?: string) =>
  new WebClient(token, {
    slackApiUrl: emulator.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
  });

/** The Slack error code a call fails with. */
async function refusal(call: Promise<unknown>): Promise<string> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as WebAPIPlatformError | undefined;
  if (error?.code !== ErrorCode.PlatformError) throw new Error(`expected a platform error, got ${String(error)}`);
  return error.data.error;
}

/** The WebAPIRateLimitedError a call fails with. */
async function rateLimit(call: Promise<unknown>): Promise<WebAPIRateLimitedError> {
  const error = (await call.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as WebAPIRateLimitedError | undefined;
  if (error?.code !== ErrorCode.RateLimitedError) throw new Error(`expected a rate limit, got ${String(error)}`);
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const THREAD = "1767225000.000100";
const RECIPIENTS = { recipient_user_id: "U0USER", recipient_team_id: "T0TEST" };

describe("SlackEmulator calls", () => {
  it("answers auth.test with the bot and workspace", async () => {
    const { emulator, client } = await start();
    expect(await client.auth.test()).toMatchObject({
      ok: true,
      url: "https://test.slack.com/",
      team: "Test",
      user: "chatbridge",
      team_id: "T0TEST",
      user_id: "U0BOT",
      bot_id: "B0BOT",
    });
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
  });

  it("refuses a wrong or missing token, 404s an unknown method, and never records the token", async () => {
    const { emulator } = await start();
    expect(await refusal(clientOf(emulator, "xoxb-wrong").auth.test())).toBe("invalid_auth");
    expect(await refusal(clientOf(emulator).auth.test())).toBe("not_authed");

    const unknown = await fetch(`${emulator.url}no.such.method`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.token}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error: "unknown_method" });

    const byBodyToken = await fetch(`${emulator.url}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: emulator.token }),
    });
    expect(await byBodyToken.json()).toMatchObject({ ok: true, user_id: "U0BOT" });

    expect(emulator.calls.map(({ method, ok, error, status }) => [method, ok, error, status])).toEqual([
      ["auth.test", false, "invalid_auth", 200],
      ["auth.test", false, "not_authed", 200],
      ["no.such.method", false, "unknown_method", 404],
      ["auth.test", true, undefined, 200],
    ]);
    expect(JSON.stringify(emulator.calls)).not.toContain(emulator.token);
  });

  it("posts in a thread and updates: the text changes and counts one edit", async () => {
    const { emulator, client } = await start();
    const posted = await client.chat.postMessage({ channel: "C1", thread_ts: THREAD, text: "Thinking…" });
    expect(posted).toMatchObject({
      ok: true,
      channel: "C1",
      message: { type: "message", text: "Thinking…", user: "U0BOT", bot_id: "B0BOT", thread_ts: THREAD },
    });
    expect(posted.ts).toMatch(/^\d{10}\.\d{6}$/);
    const second = await client.chat.postMessage({ channel: "C1", text: "elsewhere" });
    expect(Number(second.ts)).toBeGreaterThan(Number(posted.ts));

    const ts = posted.ts as string;
    expect(await client.chat.update({ channel: "C1", ts, text: "Done" })).toMatchObject({ ok: true, ts, text: "Done" });
    await client.chat.update({ channel: "C1", ts, text: "Done" });
    expect(emulator.messagesIn("C1", THREAD)).toMatchObject([
      { channel: "C1", ts, threadTs: THREAD, text: "Done", format: "mrkdwn", edits: 1, streaming: false },
    ]);
    expect(emulator.messagesIn("C1").map((message) => message.text)).toEqual(["Done", "elsewhere"]);
    expect(emulator.messagesIn("C1")[0]?.changedAt).toBeGreaterThan(emulator.messagesIn("C1")[0]?.postedAt ?? 0);

    await client.chat.update({ channel: "C1", ts, markdown_text: "**Done**" });
    expect(emulator.messagesIn("C1")[0]).toMatchObject({ text: "**Done**", format: "markdown", edits: 2 });
  });

  it("refuses what Slack refuses in posts and updates", async () => {
    const { emulator, client } = await start();
    expect(await refusal(client.chat.update({ channel: "C1", ts: "1.000001", text: "x" }))).toBe("message_not_found");
    expect(await refusal(client.apiCall("chat.postMessage", { channel: "C1" }))).toBe("no_text");
    expect(await refusal(client.chat.postMessage({ channel: "C1", text: "x".repeat(40_001) }))).toBe("msg_too_long");
    expect(await refusal(client.chat.postMessage({ channel: "C1", markdown_text: "x".repeat(12_001) }))).toBe(
      "markdown_text_too_long",
    );
    expect(await refusal(client.apiCall("chat.postMessage", { channel: "C1", text: "a", markdown_text: "b" }))).toBe(
      "invalid_arguments",
    );
    expect(await refusal(client.chat.postMessage({ channel: "C1", text: "x", blocks: Array(51).fill({}) }))).toBe(
      "invalid_blocks",
    );
    expect(emulator.messagesIn("C1")).toEqual([]);
    expect(emulator.calls.every((call) => !call.ok && call.status === 200)).toBe(true);
  });

  it("checks image accessories and buttons, refusing an image it cannot download with invalid_blocks", async () => {
    const { emulator, client } = await start();
    type Blocks = { type: string; [key: string]: unknown }[];
    const card = (imageUrl: string, buttons: object[]): Blocks => [
      {
        type: "section",
        text: { type: "mrkdwn", text: "*$450,000*" },
        accessory: { type: "image", image_url: imageUrl, alt_text: "12 Oak St" },
      },
      { type: "actions", elements: buttons },
    ];
    const details = {
      type: "button",
      action_id: "d",
      text: { type: "plain_text", text: "Details" },
      url: "https://h.test/1",
    };
    const similar = { type: "button", action_id: "s", text: { type: "plain_text", text: "Similar homes" }, value: "v" };
    await client.chat.postMessage({
      channel: "C1",
      text: "card",
      blocks: card("https://img.test/1.jpg", [details, similar]),
    });
    expect(emulator.messagesIn("C1")).toHaveLength(1);
    emulator.unreachableImages.add("https://img.test/gone.jpg");
    const post = (blocks: Blocks) => refusal(client.chat.postMessage({ channel: "C1", text: "card", blocks }));
    expect(await post(card("https://img.test/gone.jpg", [details]))).toBe("invalid_blocks");
    expect(await post(card("img/1.jpg", [details]))).toBe("invalid_blocks");
    expect(await post(card("https://img.test/1.jpg", [details, details]))).toBe("invalid_blocks");
    expect(await post(card("https://img.test/1.jpg", [{ ...similar, text: { type: "mrkdwn", text: "x" } }]))).toBe(
      "invalid_blocks",
    );
    expect(emulator.messagesIn("C1")).toHaveLength(1);
  });

  it("decodes the blocks WebClient JSON-encodes into its form body", async () => {
    const { emulator, client } = await start();
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*hi*" } }];
    await client.chat.postMessage({ channel: "C1", text: "[1]", blocks, unfurl_links: false });
    expect(emulator.messagesIn("C1")).toMatchObject([{ text: "[1]", blocks }]);
    expect(emulator.callsTo("chat.postMessage")[0]?.params).toMatchObject({
      text: "[1]",
      blocks,
      unfurl_links: "false",
    });
  });

  it("streams: start, two appends and a stop with final text concatenate into one markdown message", async () => {
    const { emulator, client } = await start();
    const started = await client.chat.startStream({ channel: "D1", thread_ts: THREAD, markdown_text: "Hel" });
    const ts = started.ts as string;
    expect(started).toMatchObject({ ok: true, channel: "D1" });
    expect(emulator.messagesIn("D1")).toMatchObject([{ ts, text: "Hel", format: "markdown", streaming: true }]);
    expect(await refusal(client.chat.update({ channel: "D1", ts, text: "x" }))).toBe("cant_update_message");

    await client.chat.appendStream({ channel: "D1", ts, markdown_text: "lo, " });
    await client.chat.appendStream({ channel: "D1", ts, markdown_text: "wor" });
    await client.chat.stopStream({ channel: "D1", ts, markdown_text: "ld!" });
    const [message] = emulator.messagesIn("D1", THREAD);
    expect(message).toMatchObject({ text: "Hello, world!", streaming: false, appends: 2, edits: 0 });
    expect(message?.stoppedAt).toBeGreaterThanOrEqual(message?.postedAt ?? Infinity);

    expect(await refusal(client.chat.appendStream({ channel: "D1", ts, markdown_text: "more" }))).toBe(
      "message_not_in_streaming_state",
    );
    expect(await refusal(client.chat.stopStream({ channel: "D1", ts }))).toBe("message_not_in_streaming_state");
    expect(await refusal(client.chat.appendStream({ channel: "D1", ts: "1.000001", markdown_text: "x" }))).toBe(
      "message_not_found",
    );
  });

  it("streams through WebClient's chatStream helper, which sends markdown chunks", async () => {
    const { emulator, client } = await start();
    const streamer = client.chatStream({ channel: "D1", thread_ts: THREAD, ...RECIPIENTS, buffer_size: 4 });
    await streamer.append({ markdown_text: "Hello" });
    await streamer.append({ markdown_text: " there" });
    await streamer.stop({ markdown_text: "!" });
    expect(emulator.messagesIn("D1")).toMatchObject([{ text: "Hello there!", streaming: false, appends: 1 }]);
  });

  it("starts a stream only in a thread, and in channels only for a recipient", async () => {
    const { emulator, client } = await start();
    expect(await refusal(client.apiCall("chat.startStream", { channel: "D1" }))).toBe("invalid_arguments");
    expect(await refusal(client.chat.startStream({ channel: "C1", thread_ts: THREAD }))).toBe("invalid_arguments");
    await client.chat.startStream({ channel: "C1", thread_ts: THREAD, ...RECIPIENTS });
    expect(emulator.messagesIn("C1")).toMatchObject([
      { text: "", streaming: true, recipientUserId: "U0USER", recipientTeamId: "T0TEST" },
    ]);
  });

  it("refuses streaming while told to, and posts where the bot is not a member", async () => {
    const { emulator, client } = await start();
    emulator.refuseStreaming("feature_not_enabled");
    expect(await refusal(client.chat.startStream({ channel: "D1", thread_ts: THREAD }))).toBe("feature_not_enabled");
    emulator.refuseStreaming(undefined);
    expect((await client.chat.startStream({ channel: "D1", thread_ts: THREAD })).ok).toBe(true);

    emulator.notInChannel("C9");
    expect(await refusal(client.chat.postMessage({ channel: "C9", text: "hi" }))).toBe("not_in_channel");
    expect(await refusal(client.chat.startStream({ channel: "C9", thread_ts: THREAD, ...RECIPIENTS }))).toBe(
      "not_in_channel",
    );
    expect(emulator.messagesIn("C9")).toEqual([]);
  });

  it("records the assistant statuses that were set, an empty one clearing", async () => {
    const { emulator, client } = await start();
    await client.assistant.threads.setStatus({
      channel_id: "D1",
      thread_ts: THREAD,
      status: "is thinking…",
      loading_messages: ["Reading", "Writing"],
    });
    await client.assistant.threads.setStatus({ channel_id: "D1", thread_ts: THREAD, status: "" });
    expect(await refusal(client.apiCall("assistant.threads.setStatus", { channel_id: "D1", status: "x" }))).toBe(
      "invalid_arguments",
    );
    expect(emulator.statuses("D1", THREAD).map(({ status }) => status)).toEqual(["is thinking…", ""]);
    expect(emulator.statuses("D1", "2.000000")).toEqual([]);
    expect(emulator.callsTo("assistant.threads.setStatus")[0]?.params.loading_messages).toEqual(["Reading", "Writing"]);
  });

  it("answers users.info for known users only", async () => {
    const { emulator, client } = await start();
    emulator.addUser({ id: "U0USER", name: "ada", realName: "Ada Lovelace" });
    expect((await client.users.info({ user: "U0USER" })).user).toMatchObject({
      id: "U0USER",
      name: "ada",
      real_name: "Ada Lovelace",
      profile: { display_name: "ada", real_name: "Ada Lovelace" },
      tz: expect.any(String),
    });
    expect(await refusal(client.users.info({ user: "U0NOBODY" }))).toBe("user_not_found");
  });

  it("forgets calls and messages on reset, keeping users", async () => {
    const { emulator, client } = await start();
    emulator.addUser({ id: "U0USER", name: "ada" });
    await client.chat.postMessage({ channel: "C1", text: "hi" });
    emulator.reset();
    expect([emulator.calls, emulator.messagesIn("C1")]).toEqual([[], []]);
    expect((await client.users.info({ user: "U0USER" })).ok).toBe(true);
  });
});

describe("SlackEmulator rate limits", () => {
  it("answers 429 with Retry-After over a method's sliding window, not counting refused calls", async () => {
    const { emulator, client } = await start({ methods: { "chat.update": { max: 2, windowMs: 500 } } });
    const { ts } = await client.chat.postMessage({ channel: "C1", text: "0" });
    const update = (text: string) => client.chat.update({ channel: "C1", ts: ts as string, text });
    expect(await refusal(client.chat.update({ channel: "C1", ts: "1.000001", text: "x" }))).toBe("message_not_found");
    await update("1");
    const firstAt = performance.now();
    await update("2");
    expect((await rateLimit(update("3"))).retryAfter).toBe(1);

    const raw = await fetch(`${emulator.url}chat.update`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.token}`, "content-type": "application/json" },
      body: JSON.stringify({ channel: "C1", ts, text: "4" }),
    });
    expect([raw.status, raw.headers.get("retry-after"), await raw.json()]).toEqual([
      429,
      "1",
      { ok: false, error: "ratelimited" },
    ]);
    expect(emulator.rateLimited().map(({ method, status, error }) => [method, status, error])).toEqual([
      ["chat.update", 429, "ratelimited"],
      ["chat.update", 429, "ratelimited"],
    ]);
    expect(emulator.messagesIn("C1")[0]).toMatchObject({ text: "2", edits: 2 });

    await sleep(firstAt + 520 - performance.now());
    await update("5");
    expect(emulator.messagesIn("C1")[0]?.text).toBe("5");
  });

  it("limits chat.postMessage per channel and per workspace", async () => {
    const { emulator, client } = await start({
      postPerChannel: { max: 1, windowMs: 300 },
      postPerWorkspace: { max: 3, windowMs: 60_000 },
    });
    const post = (channel: string) => client.chat.postMessage({ channel, text: "hi" });
    await post("C1");
    await rateLimit(post("C1"));
    await post("C2");
    await sleep(320);
    await post("C1");
    expect((await rateLimit(post("C3"))).retryAfter).toBeGreaterThanOrEqual(59);
    expect(emulator.rateLimited().map((call) => call.params.channel)).toEqual(["C1", "C3"]);
    expect(emulator.messagesIn("C1")).toHaveLength(2);
  });
});

describe("SlackEmulator files and events", () => {
  it("serves a private file only with the bot token, else a 200 login page", async () => {
    const { emulator } = await start();
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const file = emulator.addFile(bytes, { name: "chart 1.png", mimetype: "image/png" });
    expect(file.url_private).toBe(`${emulator.url.replace("/api/", "")}/files-pri/T0TEST-${file.id}/chart%201.png`);
    expect(file.url_private_download).toContain(`/files-pri/T0TEST-${file.id}/download/`);

    for (const url of [file.url_private, file.url_private_download]) {
      const authorized = await fetch(url, { headers: { authorization: `Bearer ${emulator.token}` } });
      expect([authorized.status, authorized.headers.get("content-type")]).toEqual([200, "image/png"]);
      expect(new Uint8Array(await authorized.arrayBuffer())).toEqual(bytes);
    }
    for (const headers of [{}, { authorization: "Bearer xoxb-wrong" }] as Record<string, string>[]) {
      const anonymous = await fetch(file.url_private, { headers });
      expect([anonymous.status, anonymous.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      expect(await anonymous.text()).toContain("<!DOCTYPE html>");
    }
    const missing = await fetch(file.url_private.replace(file.id, "F9"), {
      headers: { authorization: `Bearer ${emulator.token}` },
    });
    expect(missing.status).toBe(404);
  });

  it("delivers events signed as Slack signs them, with retry headers", async () => {
    const secret = "8f742231b10e8888abcd99yyyzzz85a5";
    const received: { headers: IncomingHttpHeaders; body: string; valid: boolean }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const expected = Buffer.from(
          `v0=${createHmac("sha256", secret).update(`v0:${req.headers["x-slack-request-timestamp"]}:${body}`).digest("hex")}`,
        );
        const signature = Buffer.from(String(req.headers["x-slack-signature"]));
        const valid = signature.length === expected.length && timingSafeEqual(signature, expected);
        received.push({ headers: req.headers, body, valid });
        res.writeHead(valid ? 200 : 401, { "x-handled": "yes" }).end(valid ? "ok" : "bad signature");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const { emulator } = await start();
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slack/events`;
      const payload = { type: "event_callback", event_id: "Ev1", event: { type: "message", text: "hi" } };

      const delivered = await emulator.deliver(url, payload, { signingSecret: secret });
      expect(delivered).toMatchObject({ status: 200, body: "ok", headers: { "x-handled": "yes" } });
      await emulator.deliver(url, payload, {
        signingSecret: secret,
        timestamp: 1_767_225_000,
        retryNum: 1,
        retryReason: "http_timeout",
      });
      expect((await emulator.deliver(url, payload, { signingSecret: secret, signature: "v0=00" })).status).toBe(401);

      expect(received.map(({ valid }) => valid)).toEqual([true, true, false]);
      expect(JSON.parse(received[0]?.body ?? "")).toEqual(payload);
      expect(received[0]?.headers).toMatchObject({ "content-type": "application/json" });
      expect(Math.abs(Number(received[0]?.headers["x-slack-request-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
      expect(received[0]?.headers["x-slack-retry-num"]).toBeUndefined();
      expect(received[1]?.headers).toMatchObject({
        "x-slack-request-timestamp": "1767225000",
        "x-slack-retry-num": "1",
        "x-slack-retry-reason": "http_timeout",
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

/** What SocketModeClient's `slack_event` listeners get. */
interface SocketModeEvent {
  ack: (response?: Record<string, unknown>) => Promise<void>;
  envelope_id: string;
  type: string;
  body: { type?: string; event?: { type?: string } };
  retry_num?: number;
  retry_reason?: string;
  accepts_response_payload?: boolean;
}

/** A raw WebSocket to `url` once open, with the first message it got. */
function openSocket(url: string): Promise<{ socket: WebSocket; first: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("message", (data) => resolve({ socket, first: JSON.parse(String(data)) }));
    socket.once("error", reject);
  });
}

/** The HTTP status the emulator refuses a WebSocket upgrade to `url` with. */
function upgradeRefusal(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on("error", () => {});
    socket.once("open", () => reject(new Error("the upgrade was accepted")));
    socket.once("unexpected-response", (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
  });
}

const HELLO = {
  type: "hello",
  num_connections: 1,
  debug_info: { host: "emulator", build_number: 1, approximate_connection_time: 18060 },
  connection_info: { app_id: "A0EMULATOR" },
};

describe("SlackEmulator Socket Mode", () => {
  it("connects SocketModeClient and sends it events and interactions, resolving with the acks", async () => {
    const { emulator } = await start();
    const client = new SocketModeClient({
      appToken: emulator.appToken,
      clientOptions: { slackApiUrl: emulator.url },
      logLevel: LogLevel.ERROR,
    });
    const received: Omit<SocketModeEvent, "ack">[] = [];
    client.on("slack_event", async ({ ack, ...event }: SocketModeEvent) => {
      received.push(event);
      // Leaves reactions unacknowledged, to see the emulator time out.
      if (event.body.event?.type === "reaction_added") return;
      await ack(event.body.type === "view_submission" ? { response_action: "clear" } : undefined);
    });
    try {
      await client.start();
      expect(emulator.socketConnections).toBe(1);

      const payload = {
        type: "event_callback",
        team_id: emulator.teamId,
        event_id: "Ev1",
        event: { type: "message", channel: "D1", user: "U0USER", text: "hi", ts: THREAD },
      };
      const ack = await emulator.sendOverSocket(payload, { retryAttempt: 1, retryReason: "timeout" });
      expect(ack).toEqual({ envelope_id: expect.any(String), payload: {} });
      expect(received).toEqual([
        {
          envelope_id: ack.envelope_id,
          type: "events_api",
          body: payload,
          retry_num: 1,
          retry_reason: "timeout",
          accepts_response_payload: false,
        },
      ]);

      const action = { type: "block_actions", actions: [{ action_id: "retry", value: "1" }] };
      expect(await emulator.sendOverSocket(action, { kind: "interactive" })).toMatchObject({ payload: {} });
      const submission = { type: "view_submission", view: { id: "V1" } };
      const submitted = await emulator.sendOverSocket(submission, { kind: "interactive" });
      expect(submitted.payload).toEqual({ response_action: "clear" });
      expect(
        received.slice(1).map(({ type, body, accepts_response_payload }) => [type, body, accepts_response_payload]),
      ).toEqual([
        ["interactive", action, false],
        ["interactive", submission, true],
      ]);

      const reaction = { ...payload, event_id: "Ev2", event: { type: "reaction_added", reaction: "eyes" } };
      await expect(emulator.sendOverSocket(reaction, { timeoutMs: 50 })).rejects.toThrow(/no ack/);
      expect(received).toHaveLength(4);

      expect(emulator.callsTo("apps.connections.open")).toMatchObject([{ ok: true, params: {}, status: 200 }]);
      expect(JSON.stringify(emulator.calls)).not.toContain(emulator.appToken);
    } finally {
      await client.disconnect();
    }
    await vi.waitFor(() => expect(emulator.socketConnections).toBe(0), { timeout: 2000, interval: 10 });
    await expect(emulator.sendOverSocket({ type: "event_callback" })).rejects.toThrow(/no Socket Mode connection/);
  });

  it("opens connections only for the app-level token, each ticket once", async () => {
    const { emulator } = await start();
    expect(await refusal(clientOf(emulator, emulator.token).apps.connections.open())).toBe("not_allowed_token_type");
    expect(await refusal(clientOf(emulator, "xapp-1-wrong").apps.connections.open())).toBe("invalid_auth");
    expect(await refusal(clientOf(emulator).apps.connections.open())).toBe("not_authed");
    expect(await refusal(clientOf(emulator, emulator.appToken).auth.test())).toBe("not_allowed_token_type");

    const { url } = await clientOf(emulator, emulator.appToken).apps.connections.open();
    const port = new URL(emulator.url).port;
    expect(url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/link/\\?ticket=[\\w-]+$`));
    const { socket, first } = await openSocket(String(url));
    expect(first).toEqual(HELLO);
    expect(emulator.socketConnections).toBe(1);
    expect(await upgradeRefusal(String(url))).toBe(403);
    expect(await upgradeRefusal(`ws://127.0.0.1:${port}/link/`)).toBe(401);
    expect(await upgradeRefusal(`ws://127.0.0.1:${port}/link/?ticket=made-up`)).toBe(403);

    // Closing the emulator ends the socket and the ack it waited for.
    const pending = emulator.sendOverSocket({ type: "event_callback" }).then(
      () => "acked",
      (error: Error) => error.message,
    );
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await emulator.close();
    expect(await pending).toMatch(/emulator closed|socket closed/);
    await closed;
    expect(emulator.socketConnections).toBe(0);
  });
});
