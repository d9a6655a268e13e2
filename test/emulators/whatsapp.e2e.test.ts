import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type WhatsAppCall, WhatsAppEmulator, type WhatsAppEmulatorOptions, type WhatsAppLimits } from "./whatsapp.js";

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((closable) => closable.close()));
});

const USER = "15550002222";

/** A Graph answer, typed loosely for assertions: an error, a send's result or media metadata. */
interface GraphAnswer {
  error: { code: number; message: string; type: string; fbtrace_id: string; error_data: { details: string } };
  messages: { id: string }[];
  url: string;
  [field: string]: unknown;
}

/** An emulator with USER in the service window, and a client of its Graph API. */
async function start(limits?: Partial<WhatsAppLimits>, options: WhatsAppEmulatorOptions = {}) {
  const emulator = await WhatsAppEmulator.start({ ...options, ...(limits && { limits }) });
  started.push(emulator);
  emulator.openWindow(USER);
  const graph = async (method: string, path: string, body?: object, token: string | null = emulator.accessToken) => {
    const response = await fetch(`${emulator.url}${path}`, {
      method,
      headers: {
        ...(token !== null && { authorization: `Bearer ${token}` }),
        ...(body && { "content-type": "application/json" }),
      },
      ...(body && { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as GraphAnswer };
  };
  const messagesPath = `/${emulator.version}/${emulator.phoneNumberId}/messages`;
  const send = (body: object, token?: string | null) =>
    graph("POST", messagesPath, { messaging_product: "whatsapp", ...body }, token);
  return { emulator, graph, send };
}

const text = (body: string, to = USER) => ({ to, type: "text", text: { body } });

const DAY = 24 * 60 * 60 * 1000;
const ALERT_TEMPLATE = { name: "home_alert", language: "en_US", bodyParameters: 3 };

const template = (name: string, code: string, parameters: string[], to = USER) => ({
  to,
  type: "template",
  template: {
    name,
    language: { code },
    components: [{ type: "body", parameters: parameters.map((text) => ({ type: "text", text })) }],
  },
});

const buttons = (titles: string[]) => ({
  to: USER,
  type: "interactive",
  interactive: {
    type: "button",
    body: { text: "Pick one" },
    action: { buttons: titles.map((title, i) => ({ type: "reply", reply: { id: `b${i}`, title } })) },
  },
});

/** A node:http server answering with `handle`; resolves with its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  started.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("WhatsAppEmulator Graph API", () => {
  it("refuses a missing or wrong token with Graph's OAuthException 190, and never records the token", async () => {
    const { emulator, send } = await start();
    for (const token of [null, "EAAG-wrong"]) {
      const { status, json } = await send(text("hi"), token);
      expect(status).toBe(401);
      expect(json.error).toMatchObject({ message: "Invalid OAuth access token.", type: "OAuthException", code: 190 });
      expect(json.error.fbtrace_id).toEqual(expect.any(String));
    }
    expect(emulator.sentTo(USER)).toEqual([]);
    expect(emulator.calls.map((call) => call.errorCode)).toEqual([190, 190]);
    expect(JSON.stringify(emulator.calls)).not.toContain(emulator.accessToken);
  });

  it("sends a text and answers with contacts and a wamid", async () => {
    const { emulator, send } = await start();
    const { status, json } = await send({ ...text("Hello", "+1 555-000-2222"), context: { message_id: "wamid.IN" } });
    expect(status).toBe(200);
    expect(json).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: "+1 555-000-2222", wa_id: USER }],
      messages: [{ id: expect.stringMatching(/^wamid\./) }],
    });
    expect(emulator.sentTo(USER)).toEqual([
      { id: json.messages[0]?.id, to: USER, type: "text", text: "Hello", replyTo: "wamid.IN", at: expect.any(Number) },
    ]);
    expect(emulator.calls).toEqual([
      expect.objectContaining<Partial<WhatsAppCall>>({
        method: "POST",
        path: `/v23.0/1234567890/messages`,
        status: 200,
      }),
    ]);
  });

  it("refuses invalid parameters with code 100 naming the field", async () => {
    const { emulator, send, graph } = await start();
    const refusals = [
      [{ ...text("hi"), messaging_product: "sms" }, "messaging_product"],
      [text("x".repeat(4097)), "text.body"],
      [{ to: USER, type: "text", text: {} }, "text.body"],
      [buttons(["a", "b", "c", "d"]), "interactive.action.buttons"],
      [buttons(["x".repeat(21)]), "interactive.action.buttons[0].reply.title"],
      [{ to: USER, type: "image", image: {} }, "image"],
    ] as const;
    for (const [body, field] of refusals) {
      const { status, json } = await send(body);
      expect(status).toBe(400);
      expect(json.error).toMatchObject({ code: 100, message: "(#100) Invalid parameter" });
      expect(json.error.error_data.details).toContain(field);
    }
    expect((await send(text("x".repeat(4096)))).status).toBe(200);
    expect((await send(buttons(["a", "b", "x".repeat(20)]))).status).toBe(200);

    const unknownNumber = await graph("POST", "/v23.0/999/messages", { messaging_product: "whatsapp", ...text("hi") });
    expect(unknownNumber.status).toBe(400);
    expect(unknownNumber.json.error).toMatchObject({ code: 100, type: "GraphMethodException" });
    expect(unknownNumber.json.error.message).toMatch(/^Unsupported post request/);
    expect((await graph("POST", "/23.0/1234567890/messages", text("hi"))).status).toBe(400);
    expect(emulator.sentTo(USER).map((message) => message.type)).toEqual(["text", "interactive"]);
  });

  it("validates and keeps list messages", async () => {
    const { emulator, send } = await start();
    const list = (rowTitle: string) => ({
      to: USER,
      type: "interactive",
      interactive: {
        type: "list",
        body: { text: "Choose" },
        action: { button: "Options", sections: [{ rows: [{ id: "r1", title: rowTitle }] }] },
      },
    });
    expect((await send(list("x".repeat(25)))).json.error.error_data.details).toContain("rows[0].title");
    expect((await send(list("Row"))).status).toBe(200);
    expect(emulator.sentTo(USER)[0]?.interactive).toEqual(list("Row").interactive);
  });

  it("takes reply buttons with an image header by link, refusing a malformed header or a list with media", async () => {
    const { emulator, send } = await start();
    const withHeader = (header: object, type = "button") => {
      const message = buttons(["Similar homes"]) as { interactive: Record<string, unknown> };
      return { ...message, interactive: { ...message.interactive, type, header } };
    };
    const image = { type: "image", image: { link: "https://images.test/1.jpg" } };
    expect((await send(withHeader(image))).status).toBe(200);
    expect(emulator.sentTo(USER)[0]?.interactive).toMatchObject({ header: image });
    const both = { type: "image", image: { link: "https://images.test/1.jpg", id: "123" } };
    expect((await send(withHeader(both))).json.error.error_data.details).toContain("exactly one of id and link");
    const notUrl = { type: "image", image: { link: "images/1.jpg" } };
    expect((await send(withHeader(notUrl))).json.error.error_data.details).toContain("http(s) URL");
    expect((await send(withHeader({ type: "text", text: "x".repeat(61) }))).json.error.error_data.details).toContain(
      "interactive.header.text",
    );
  });

  it("records read receipts with and without the typing indicator, outside any limit", async () => {
    const { emulator, send } = await start({ perNumber: { max: 1, windowMs: 60_000 } });
    const read = { status: "read", message_id: "wamid.IN1" };
    expect(await send({ ...read, typing_indicator: { type: "text" } })).toEqual({
      status: 200,
      json: { success: true },
    });
    expect((await send(read)).json).toEqual({ success: true });
    expect((await send({ ...read, typing_indicator: { type: "audio" } })).status).toBe(400);
    expect(emulator.readReceipts()).toEqual([
      { messageId: "wamid.IN1", typing: true, at: expect.any(Number) },
      { messageId: "wamid.IN1", typing: false, at: expect.any(Number) },
    ]);
    expect((await send(text("still allowed"))).status).toBe(200);
  });

  it("limits messages per recipient with 131056, and allows them again after the window", async () => {
    const { emulator, send } = await start({ perRecipient: { max: 2, windowMs: 300 } });
    emulator.openWindow("15550003333");
    expect((await send(text("1"))).status).toBe(200);
    expect((await send(text("2"))).status).toBe(200);
    const refused = await send(text("3"));
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: 131056,
      message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
    });
    expect((await send(text("other", "15550003333"))).status).toBe(200);
    await sleep(320);
    expect((await send(text("3 again"))).status).toBe(200);
    expect(emulator.sentTo(USER).map((message) => message.text)).toEqual(["1", "2", "3 again"]);
    expect(emulator.rateLimited()).toHaveLength(1);
  });

  it("limits the number's throughput with 130429; refused sends consume no budget", async () => {
    const { emulator, send } = await start({ perNumber: { max: 2, windowMs: 300 } });
    emulator.openWindow("15550003333");
    expect((await send(text("1"))).status).toBe(200);
    expect((await send(text("2", "15550003333"))).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const { status, json } = await send(text("3"));
      expect(status).toBe(400);
      expect(json.error).toMatchObject({ code: 130429, message: "(#130429) Rate limit hit" });
    }
    await sleep(320);
    expect((await send(text("3"))).status).toBe(200);
    expect((await send(text("4"))).status).toBe(200);
    expect(emulator.rateLimited().map((call) => call.errorCode)).toEqual([130429, 130429, 130429]);
  });

  it("refuses free-form messages outside the 24-hour window with 131047", async () => {
    const { emulator, send } = await start();
    const { status, json } = await send(text("hello?", "15559999999"));
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 131047, message: "(#131047) Re-engagement message" });
    emulator.openWindow("15559999999");
    expect((await send(text("hello", "15559999999"))).status).toBe(200);
    emulator.reset();
    expect((await send(text("after reset"))).json.error.code).toBe(131047);
  });

  it("closes the window 24 hours after the user's last message, by its clock, and on a last message set in the past", async () => {
    let clock = Date.parse("2026-11-28T12:00:00Z");
    const { emulator, send } = await start(undefined, { now: () => clock });
    clock += DAY - 1000;
    expect((await send(text("still inside"))).status).toBe(200);
    clock += 1000;
    const { status, json } = await send(text("one day later"));
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 131047, type: "OAuthException" });
    expect(json.error.error_data.details).toContain("more than 24 hours have passed");
    emulator.openWindow(USER);
    expect((await send(text("after a new message"))).status).toBe(200);
    emulator.setLastMessage(USER, clock - DAY - 1);
    expect((await send(text("set in the past"))).json.error.code).toBe(131047);
    expect(emulator.sentTo(USER).map((message) => message.text)).toEqual(["still inside", "after a new message"]);
  });

  it("sends a registered template at any time, outside the window too, and records it", async () => {
    const { emulator, send } = await start(undefined, { templates: [ALERT_TEMPLATE] });
    const { status, json } = await send(
      template("home_alert", "en_US", ["A new home", "$1 · 3 beds", "https://x"], "155577"),
    );
    expect(status).toBe(200);
    expect(json.messages[0]?.id).toMatch(/^wamid\./);
    expect(emulator.sentTo("155577")).toMatchObject([
      {
        type: "template",
        template: { name: "home_alert", language: "en_US", parameters: ["A new home", "$1 · 3 beds", "https://x"] },
      },
    ]);
  });

  it("refuses template sends that do not fit a registered template with Meta's codes", async () => {
    const { emulator, send } = await start();
    emulator.addTemplate(ALERT_TEMPLATE);
    const refusal = async (body: object) => (await send(body)).json.error;
    expect(await refusal(template("home_alerts", "en_US", ["a", "b", "c"]))).toMatchObject({
      code: 132001,
      message: "(#132001) Template name does not exist in the translation",
      error_data: { details: "template name (home_alerts) does not exist in en_US" },
    });
    expect((await refusal(template("home_alert", "pt_BR", ["a", "b", "c"]))).code).toBe(132001);
    expect(await refusal(template("home_alert", "en_US", ["a", "b"]))).toMatchObject({
      code: 132000,
      error_data: {
        details: "body: number of localizable_params (2) does not match the expected number of params (3)",
      },
    });
    for (const bad of ["two\nlines", "a\ttab", "five     spaces"]) {
      expect((await refusal(template("home_alert", "en_US", ["a", bad, "c"]))).code).toBe(132018);
    }
    expect((await refusal(template("home_alert", "en_US", ["a", "four    spaces", "c"])))?.code).toBeUndefined();
    expect((await refusal({ to: USER, type: "template", template: { name: "home_alert" } })).code).toBe(100);
    expect(emulator.sentTo(USER).map((message) => message.template?.parameters[1])).toEqual(["four    spaces"]);
  });

  it("serves media metadata and bytes, the bytes only with the bearer token", async () => {
    const { emulator, graph } = await start();
    const bytes = new TextEncoder().encode("OggS fake voice note");
    const id = emulator.addMedia(bytes, "audio/ogg; codecs=opus");
    const { status, json } = await graph("GET", `/v23.0/${id}`);
    expect(status).toBe(200);
    expect(json).toEqual({
      messaging_product: "whatsapp",
      url: expect.stringMatching(new RegExp(`^${emulator.url}/media/${id}\\?token=`)),
      mime_type: "audio/ogg; codecs=opus",
      sha256: createHash("sha256").update(bytes).digest("hex"),
      file_size: bytes.length,
      id,
    });
    expect((await graph("GET", "/v23.0/424242")).status).toBe(400);

    const anonymous = await fetch(json.url);
    expect(anonymous.status).toBe(401);
    const download = await fetch(json.url, { headers: { authorization: `Bearer ${emulator.accessToken}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("audio/ogg; codecs=opus");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    expect(JSON.stringify(emulator.calls)).not.toContain(new URL(json.url).searchParams.get("token"));
  });
});

describe("WhatsAppEmulator webhooks", () => {
  it("delivers signed webhooks that open the user's window", async () => {
    const emulator = await WhatsAppEmulator.start();
    started.push(emulator);
    const received: { headers: IncomingHttpHeaders; body: string; valid: boolean }[] = [];
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        const expected = Buffer.from(`sha256=${createHmac("sha256", emulator.appSecret).update(raw).digest("hex")}`);
        const signature = Buffer.from(String(req.headers["x-hub-signature-256"]));
        const valid = signature.length === expected.length && timingSafeEqual(signature, expected);
        received.push({ headers: req.headers, body: raw.toString("utf8"), valid });
        res.writeHead(valid ? 200 : 403).end(valid ? "EVENT_RECEIVED" : "bad signature");
      });
    });

    const payload = emulator.delivery([{ type: "text", text: { body: "Grüße 👍" } }], { name: "Ana" });
    expect(payload).toMatchObject({
      object: "whatsapp_business_account",
      entry: [
        {
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550001111", phone_number_id: emulator.phoneNumberId },
                contacts: [{ profile: { name: "Ana" }, wa_id: USER }],
                messages: [
                  { from: USER, id: expect.stringMatching(/^wamid\./), timestamp: expect.stringMatching(/^\d+$/) },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(await emulator.deliver(url, payload)).toEqual({ status: 200, body: "EVENT_RECEIVED" });
    expect((await emulator.deliver(url, payload, { signature: "sha256=00" })).status).toBe(403);
    expect(received.map(({ valid }) => valid)).toEqual([true, false]);
    expect(received[0]?.headers["content-type"]).toBe("application/json");
    // Meta escapes non-ASCII text, so only the raw body verifies.
    expect(received[0]?.body).toContain("Gr\\u00fc\\u00dfe \\ud83d\\udc4d");
    expect(JSON.parse(received[0]?.body ?? "")).toEqual(payload);

    const sent = await fetch(`${emulator.url}/v23.0/${emulator.phoneNumberId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", ...text("Hi Ana") }),
    });
    expect(sent.status).toBe(200);
  });

  it("opens the window from each delivered message's timestamp", async () => {
    let clock = Date.parse("2026-11-28T12:00:00Z");
    const emulator = await WhatsAppEmulator.start({ now: () => clock });
    started.push(emulator);
    const url = await serve((_req, res) => res.writeHead(200).end("EVENT_RECEIVED"));
    const older = String(Math.floor((clock - DAY + 60_000) / 1000));
    await emulator.deliver(url, emulator.delivery([{ type: "text", text: { body: "a day ago" }, timestamp: older }]));
    const send = (body: string) =>
      fetch(`${emulator.url}/v23.0/${emulator.phoneNumberId}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${emulator.accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ messaging_product: "whatsapp", ...text(body) }),
      });
    expect((await send("within the minute left")).status).toBe(200);
    clock += 60_000;
    expect((await send("too late")).status).toBe(400);
  });

  it("runs the verification handshake", async () => {
    const emulator = await WhatsAppEmulator.start();
    started.push(emulator);
    const url = await serve((req, res) => {
      const query = new URL(req.url ?? "/", "http://receiver").searchParams;
      const ok = query.get("hub.mode") === "subscribe" && query.get("hub.verify_token") === "my-verify-token";
      res.writeHead(ok ? 200 : 403).end(ok ? (query.get("hub.challenge") ?? "") : "Forbidden");
    });
    expect(await emulator.verify(url, "my-verify-token", "1158201444")).toEqual({ status: 200, body: "1158201444" });
    expect(await emulator.verify(url, "wrong", "1158201444")).toEqual({ status: 403, body: "Forbidden" });
  });
});
