import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Api, GrammyError } from "grammy/web";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../support/waiting.js";
import { type EmulatorLimits, TelegramEmulator } from "./telegram.js";

/** Limits no test outside the flood control ones reaches. */
const GENEROUS: Partial<EmulatorLimits> = {
  privateChat: { perSecond: 1000, burst: 1000 },
  group: { max: 1000, windowMs: 1000 },
  bot: { max: 1000, windowMs: 1000 },
};

const started: TelegramEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

/** An emulator and a grammY client of it, set up as the bridge does. */
async function start(limits: Partial<EmulatorLimits> = GENEROUS) {
  const emulator = await TelegramEmulator.start({ limits });
  started.push(emulator);
  return { emulator, api: new Api(emulator.token, { apiRoot: emulator.url }) };
}

/** The GrammyError a call fails with. */
async function refusal(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof GrammyError)) throw new Error(`expected a GrammyError, got ${String(error)}`);
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const parseFailure = (why: string) => `Bad Request: can't parse entities: ${why}`;

describe("TelegramEmulator calls", () => {
  it("answers getMe with the bot", async () => {
    const { api } = await start();
    expect(await api.getMe()).toMatchObject({
      id: 8765336106,
      is_bot: true,
      first_name: "Chat SDK",
      username: "vercelchatsdkbot",
      can_join_groups: true,
    });
  });

  it("refuses a wrong token with 401 and an unknown method with 404, matches names in any case, hides the token", async () => {
    const { emulator } = await start();
    const wrong = await refusal(new Api("999:wrong", { apiRoot: emulator.url }).getMe());
    expect([wrong.error_code, wrong.description]).toEqual([401, "Unauthorized"]);

    const unknown = await fetch(`${emulator.url}/bot${emulator.token}/noSuchMethod`, { method: "POST" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });

    const shouted = await fetch(`${emulator.url}/bot${emulator.token}/SENDMESSAGE?chat_id=5&text=hi`);
    expect(shouted.status).toBe(200);
    expect(emulator.callsTo("sendMessage")).toMatchObject([{ params: { chat_id: "5", text: "hi" }, ok: true }]);
    expect(emulator.messagesIn(5).map((message) => message.text)).toEqual(["hi"]);

    expect(emulator.calls.map((call) => [call.method, call.ok, call.errorCode])).toEqual([
      ["getMe", false, 401],
      ["noSuchMethod", false, 404],
      ["sendMessage", true, undefined],
    ]);
    expect(JSON.stringify(emulator.calls)).not.toContain(emulator.token);
  });

  it("sends messages with per-chat ids, the visible text and Telegram's Message shape", async () => {
    const { emulator, api } = await start();
    const markup = { inline_keyboard: [[{ text: "Stop", callback_data: "stop" }]] };
    const sent = await api.sendMessage(42, '<b>Hi</b> &lt;you&gt; &amp; <a href="https://e.x">me</a> &#65;&#x42;', {
      parse_mode: "HTML",
      message_thread_id: 7,
      reply_markup: markup,
    });
    expect(sent).toMatchObject({
      message_id: 1,
      chat: { id: 42, type: "private" },
      from: { id: 8765336106, is_bot: true, username: "vercelchatsdkbot" },
      text: "Hi <you> & me AB",
      message_thread_id: 7,
    });
    expect(Math.abs(sent.date - Date.now() / 1000)).toBeLessThan(5);

    expect((await api.sendMessage(42, "second", { reply_parameters: { message_id: 1 } })).message_id).toBe(2);
    expect(await api.sendMessage(-100, "group")).toMatchObject({ message_id: 1, chat: { type: "supergroup" } });
    expect(emulator.messagesIn("42")).toMatchObject([
      { messageId: 1, chatId: 42, rawText: expect.stringContaining("<b>Hi</b>") },
      { messageId: 2, text: "second", parseMode: undefined, replyToMessageId: 1, threadId: undefined, edits: 0 },
    ]);
    expect(emulator.messagesIn(42)[0]).toMatchObject({ parseMode: "HTML", replyMarkup: markup, threadId: 7 });

    const orphan = await refusal(api.sendMessage(42, "reply", { reply_parameters: { message_id: 99 } }));
    expect(orphan.description).toBe("Bad Request: message to be replied not found");
    const tolerated = await api.sendMessage(42, "reply", {
      reply_parameters: { message_id: 99, allow_sending_without_reply: true },
    });
    expect(emulator.messagesIn(42)[tolerated.message_id - 1]?.replyToMessageId).toBeUndefined();
    emulator.enqueue({ message: { message_id: 500, chat: { id: 42, type: "private" }, text: "question" } });
    const answer = await api.sendMessage(42, "answer", { reply_parameters: { message_id: 500 } });
    expect(emulator.messagesIn(42)[answer.message_id - 1]?.replyToMessageId).toBe(500);

    expect((await refusal(api.sendMessage(42, ""))).description).toBe("Bad Request: message text is empty");
    expect((await refusal(api.sendMessage(42, "<b> </b>", { parse_mode: "HTML" }))).description).toBe(
      "Bad Request: message text is empty",
    );
  });

  it.each([
    ["Hello world <foo>x</foo>", 'Unsupported start tag "foo" at byte offset 12'],
    ["<b>bold", 'Can\'t find end tag corresponding to start tag "b"'],
    ["x</b>", "Unexpected end tag at byte offset 1"],
    ["<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'],
    ["1 < 2", 'Unsupported start tag "" at byte offset 2'],
    ["é <b", "Unclosed start tag at byte offset 3"],
    ["<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
  ])("refuses the HTML %j as Telegram does", async (html, why) => {
    const { emulator, api } = await start();
    const error = await refusal(api.sendMessage(42, html, { parse_mode: "HTML" }));
    expect([error.error_code, error.description]).toEqual([400, parseFailure(why)]);
    expect(emulator.messagesIn(42)).toEqual([]);
  });

  it("accepts Telegram's other HTML tags and, like tdlib, keeps an & that starts no entity", async () => {
    const { api } = await start();
    const html =
      '<s>a</s><u>b</u><tg-spoiler>c</tg-spoiler><span class="tg-spoiler">d</span>' +
      '<pre><code class="language-ts">e</code></pre><blockquote expandable>f</blockquote>' +
      '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji><i>g</> Tom & Jerry &copy;';
    expect((await api.sendMessage(42, html, { parse_mode: "HTML" })).text).toBe("abcdef👍g Tom & Jerry &copy;");
  });

  it("parses MarkdownV2: reserved characters must be escaped, markup must be closed", async () => {
    const { api } = await start();
    const send = (text: string) => api.sendMessage(42, text, { parse_mode: "MarkdownV2" });
    expect((await refusal(send("Hello."))).description).toBe(
      parseFailure("Character '.' is reserved and must be escaped with the preceding '\\'"),
    );
    expect((await send("Hello\\.")).text).toBe("Hello.");
    const markup = "*bold* _it_ __under__ ~s~ ||sp|| `a.b` [link](https://e.x/a_(b\\)) ```js\nx.y```";
    expect((await send(markup)).text).toBe("bold it under s sp a.b link x.y");
    expect((await refusal(send("*bold"))).description).toBe(
      parseFailure("Can't find end of Bold entity at byte offset 0"),
    );
    expect((await refusal(send("🏟 _x"))).description).toBe(
      parseFailure("Can't find end of Italic entity at byte offset 5"),
    );
    expect((await refusal(send("[a](b"))).description).toBe(parseFailure("Can't find end of a URL at byte offset 4"));
  });

  it("strips legacy Markdown", async () => {
    const { api } = await start();
    const send = (text: string) => api.sendMessage(42, text, { parse_mode: "Markdown" });
    expect((await send("*bold* _it_ `c.d` [link](https://e.x) a\\_b.")).text).toBe("bold it c.d link a_b.");
    expect((await refusal(send("*open"))).description).toBe(
      parseFailure("Can't find end of the entity starting at byte offset 0"),
    );
  });

  it("limits the visible text, not the raw text, to 4096 characters", async () => {
    const { emulator, api } = await start();
    const tooLong = await refusal(api.sendMessage(42, "a".repeat(4097)));
    expect([tooLong.error_code, tooLong.description]).toEqual([400, "Bad Request: message is too long"]);

    const html = `<b>${"&amp;".repeat(2048)}${"a".repeat(2048)}</b>`;
    expect(html.length).toBeGreaterThan(4096);
    await api.sendMessage(42, html, { parse_mode: "HTML" });
    expect(emulator.messagesIn(42)[0]?.text).toHaveLength(4096);
  });

  it("edits a message, refusing unknown messages, unchanged content and overlong text", async () => {
    const { emulator, api } = await start();
    await api.sendMessage(42, "one");
    const edited = await api.editMessageText(42, 1, "<i>two</i>", { parse_mode: "HTML" });
    expect(edited).toMatchObject({ message_id: 1, text: "two", edit_date: expect.any(Number) });

    const same = await refusal(api.editMessageText(42, 1, "<i>two</i>", { parse_mode: "HTML" }));
    expect(same.description).toBe(
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
    const markup = { inline_keyboard: [[{ text: "Stop", callback_data: "stop" }]] };
    await api.editMessageText(42, 1, "<i>two</i>", { parse_mode: "HTML", reply_markup: markup });
    expect(emulator.messagesIn(42)[0]).toMatchObject({
      text: "two",
      rawText: "<i>two</i>",
      parseMode: "HTML",
      replyMarkup: markup,
      edits: 2,
      editedAt: expect.any(Number),
    });

    expect((await refusal(api.editMessageText(42, 99, "x"))).description).toBe(
      "Bad Request: message to edit not found",
    );
    expect((await refusal(api.editMessageText(7, 1, "x"))).description).toBe("Bad Request: message to edit not found");
    expect((await refusal(api.editMessageText(42, 1, "a".repeat(4097)))).description).toBe(
      "Bad Request: MESSAGE_TOO_LONG",
    );
    expect(emulator.messagesIn(42)[0]?.edits).toBe(2);
  });

  it("keeps drafts of private chats and refuses them in groups", async () => {
    const { emulator, api } = await start();
    expect(await api.sendMessageDraft(42, 7, "*Thinking*", { parse_mode: "MarkdownV2" })).toBe(true);
    expect(await api.sendMessageDraft(42, 7, "Thinking more")).toBe(true);
    expect(emulator.draftsIn(42)).toMatchObject([
      { chatId: 42, draftId: 7, text: "Thinking" },
      { chatId: 42, draftId: 7, text: "Thinking more" },
    ]);

    const group = await refusal(api.sendMessageDraft(-100, 7, "Thinking"));
    expect([group.error_code, group.description]).toEqual([400, "Bad Request: TEXTDRAFT_PEER_INVALID"]);
    expect((await refusal(api.sendMessageDraft(42, 0, "Thinking"))).error_code).toBe(400);
    expect((await refusal(api.sendMessageDraft(42, 7, "a".repeat(4097)))).description).toBe(
      "Bad Request: message is too long",
    );
    expect(emulator.draftsIn(-100)).toEqual([]);
  });

  it("accepts Telegram's chat actions only", async () => {
    const { api } = await start();
    expect(await api.sendChatAction(42, "typing")).toBe(true);
    const dancing = await refusal(api.sendChatAction(42, "dancing" as "typing"));
    expect(dancing.description).toBe("Bad Request: wrong parameter action in request");
  });
});

describe("TelegramEmulator photos and inline buttons", () => {
  const keyboard = {
    inline_keyboard: [
      [
        { text: "Details", url: "https://homes.test/listing/1" },
        { text: "Similar homes", callback_data: "card:similar:1" },
      ],
    ],
  };

  it("sends a photo with its caption and inline keyboard, refusing an unreachable URL and a long caption", async () => {
    const { emulator, api } = await start();
    const sent = await api.sendPhoto(5, "https://images.test/1.jpg", {
      caption: "<b>$450,000</b> · 3 beds",
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
    expect(sent).toMatchObject({ message_id: 1, caption: "$450,000 · 3 beds", reply_markup: keyboard });
    expect(emulator.messagesIn(5)).toMatchObject([
      { photo: "https://images.test/1.jpg", text: "$450,000 · 3 beds", replyMarkup: keyboard },
    ]);
    emulator.unreachablePhotos.add("https://images.test/gone.jpg");
    const gone = await refusal(api.sendPhoto(5, "https://images.test/gone.jpg"));
    expect(gone.description).toBe("Bad Request: wrong file identifier/HTTP URL specified");
    const long = await refusal(api.sendPhoto(5, "https://images.test/1.jpg", { caption: "x".repeat(1025) }));
    expect(long.description).toBe("Bad Request: message caption is too long");
    const data = await refusal(
      api.sendMessage(5, "hi", {
        reply_markup: { inline_keyboard: [[{ text: "Too long", callback_data: "x".repeat(65) }]] },
      }),
    );
    expect(data.description).toBe("Bad Request: BUTTON_DATA_INVALID");
  });

  it("sends a media group of 2-10 photos, each a message counted by the flood control, without buttons", async () => {
    const { emulator, api } = await start({ privateChat: { perSecond: 0.001, burst: 3 } });
    const photo = (n: number) => ({ type: "photo" as const, media: `https://images.test/${n}.jpg` });
    const one = await refusal(api.sendMediaGroup(5, [photo(1)]));
    expect(one.description).toBe("Bad Request: media must include 2-10 items");
    const group = await api.sendMediaGroup(5, [photo(1), photo(2), { ...photo(3), caption: "Three" }]);
    expect(group.map((message) => message.message_id)).toEqual([1, 2, 3]);
    expect(emulator.messagesIn(5).map((message) => [message.photo, message.text])).toEqual([
      ["https://images.test/1.jpg", ""],
      ["https://images.test/2.jpg", ""],
      ["https://images.test/3.jpg", "Three"],
    ]);
    // Three photos spent the chat's burst of three.
    expect((await refusal(api.sendMessage(5, "more"))).error_code).toBe(429);
  });

  it("delivers a tap on a button as a callback_query, answered once with answerCallbackQuery", async () => {
    const { emulator, api } = await start();
    await api.sendMessage(5, "card", { reply_markup: keyboard });
    const tap = emulator.tap(5, 1, "card:similar:1");
    expect(tap.callback_query).toMatchObject({
      data: "card:similar:1",
      from: { id: 5, is_bot: false },
      message: { message_id: 1, chat: { id: 5 }, reply_markup: keyboard },
    });
    expect(await api.answerCallbackQuery(tap.callback_query.id)).toBe(true);
    const again = await refusal(api.answerCallbackQuery(tap.callback_query.id));
    expect(again.description).toBe("Bad Request: query is too old and response timeout expired or query ID is invalid");
    expect(emulator.answeredQueries).toEqual([{ id: tap.callback_query.id, text: undefined }]);
  });
});

describe("TelegramEmulator flood control", () => {
  it("gives a private chat a bucket of 4 calls refilled at 1 per second, shared by all message calls", async () => {
    const { emulator, api } = await start({});
    await api.sendMessage(42, "1");
    await api.sendMessage(42, "2");
    await api.sendChatAction(42, "typing");
    await api.editMessageText(42, 1, "1 edited");
    // Drafts have a flood control of their own: one now takes nothing from the messages' bucket.
    await api.sendMessageDraft(42, 1, "draft");

    const refused = await refusal(api.sendMessage(42, "5"));
    expect([refused.error_code, refused.description]).toEqual([429, "Too Many Requests: retry after 1"]);
    expect(refused.parameters.retry_after).toBeGreaterThanOrEqual(1);
    expect((await refusal(api.sendChatAction(42, "typing"))).error_code).toBe(429);
    expect(emulator.messagesIn(42).map((message) => message.text)).toEqual(["1 edited", "2"]);
    expect(emulator.rateLimited().map((call) => call.method)).toEqual(["sendMessage", "sendChatAction"]);

    // Another chat has its own bucket; refused calls and invalid ones took nothing from this one.
    await api.sendMessage(43, "other");
    expect((await refusal(api.sendMessage(42, "<b>", { parse_mode: "HTML" }))).error_code).toBe(400);
    await sleep(1000);
    await api.sendMessage(42, "5");
    expect((await refusal(api.sendMessage(42, "6"))).error_code).toBe(429);
  });

  it("does not charge calls Telegram refuses for their content", async () => {
    const { emulator, api } = await start({});
    for (let i = 0; i < 4; i++) await refusal(api.sendMessage(42, "x.", { parse_mode: "MarkdownV2" }));
    await refusal(api.sendMessageDraft(-100, 1, "x"));
    for (let i = 1; i <= 4; i++) await api.sendMessage(42, `${i}`);
    expect(emulator.messagesIn(42)).toHaveLength(4);
  });

  it("allows a group `max` calls in any sliding window", async () => {
    const { emulator, api } = await start({ group: { max: 3, windowMs: 500 } });
    await api.sendMessage(-100, "1");
    await api.sendChatAction(-100, "typing");
    await api.editMessageText(-100, 1, "1 edited");
    const refused = await refusal(api.sendMessage(-100, "2"));
    expect([refused.error_code, refused.parameters.retry_after]).toEqual([429, 1]);
    await api.sendMessage(-200, "another group");

    const first = emulator.callsTo("sendMessage")[0]?.at ?? 0;
    await sleep(first + 520 - performance.now());
    await api.sendMessage(-100, "2");
    expect(emulator.messagesIn(-100).map((message) => message.text)).toEqual(["1 edited", "2"]);
  });

  it("limits the whole bot across chats", async () => {
    const { emulator, api } = await start({ ...GENEROUS, bot: { max: 3, windowMs: 400 } });
    await api.sendMessage(1, "a");
    await api.sendMessage(2, "b");
    await api.sendChatAction(-3, "typing");
    expect((await refusal(api.sendMessage(4, "c"))).error_code).toBe(429);
    expect((await refusal(api.sendMessage(-5, "d"))).error_code).toBe(429);
    await sleep(450);
    await api.sendMessage(4, "c");
    expect(emulator.rateLimited()).toHaveLength(2);
  });

  it("paces drafts apart from messages: their own bucket per chat and window for the bot", async () => {
    const drafts = { perChat: { perSecond: 2, burst: 3 }, bot: { max: 4, windowMs: 400 } };
    const { emulator, api } = await start({ drafts });
    // A chat's messages spent to the last call leave its drafts untouched, and the other way round.
    for (let i = 0; i < 4; i++) await api.sendMessage(42, `${i}`);
    expect((await refusal(api.sendMessage(42, "over"))).error_code).toBe(429);
    for (let i = 1; i <= 3; i++) await api.sendMessageDraft(42, 7, "d".repeat(i));
    const refused = await refusal(api.sendMessageDraft(42, 7, "dddd"));
    expect([refused.error_code, refused.parameters.retry_after]).toEqual([429, 1]);
    await api.sendMessage(43, "messages of another chat still go");
    // The bot's drafts: 4 in any 400 ms across chats.
    await api.sendMessageDraft(44, 1, "a");
    expect((await refusal(api.sendMessageDraft(45, 1, "b"))).error_code).toBe(429);
    expect(emulator.rateLimited().map((call) => call.method)).toEqual([
      "sendMessage",
      "sendMessageDraft",
      "sendMessageDraft",
    ]);
    // The chat's bucket refills at 2 a second: a draft 500 ms later goes.
    await sleep(520);
    await api.sendMessageDraft(42, 7, "dddd");
    expect(emulator.draftsIn(42).map((draft) => draft.text)).toEqual(["d", "dd", "ddd", "dddd"]);
  });

  it("forgets flood state, calls, messages and drafts on reset, keeping webhook and files", async () => {
    const { emulator, api } = await start({});
    for (let i = 0; i < 4; i++) await api.sendMessage(42, `${i}`);
    await api.sendMessageDraft(42, 1, "draft");
    expect((await refusal(api.sendMessage(42, "over"))).error_code).toBe(429);
    await api.setWebhook("https://example.com/hook");
    const fileId = emulator.addFile(new Uint8Array([1]));
    emulator.reset();
    expect([emulator.calls, emulator.messagesIn(42), emulator.draftsIn(42)]).toEqual([[], [], []]);
    expect((await api.sendMessage(42, "again")).message_id).toBe(1);
    expect(emulator.webhook?.url).toBe("https://example.com/hook");
    expect((await api.getFile(fileId)).file_id).toBe(fileId);
  });
});

describe("TelegramEmulator files", () => {
  it("serves registered files through getFile and the download route", async () => {
    const { emulator, api } = await start();
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    const fileId = emulator.addFile(bytes, { fileName: "photo.jpg" });
    const file = await api.getFile(fileId);
    expect(file).toMatchObject({ file_id: fileId, file_size: 5, file_unique_id: expect.any(String) });
    expect(file.file_path).toMatch(/\.jpg$/);

    const download = await fetch(`${emulator.url}/file/bot${emulator.token}/${file.file_path}`);
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    expect((await fetch(`${emulator.url}/file/bot999:wrong/${file.file_path}`)).status).toBe(401);
    expect((await fetch(`${emulator.url}/file/bot${emulator.token}/documents/nothing.bin`)).status).toBe(404);

    expect((await api.getFile(emulator.addFile(bytes))).file_path).toMatch(/\.bin$/);
    expect((await refusal(api.getFile("no-such-file"))).description).toBe("Bad Request: invalid file_id");
    const huge = emulator.addFile(new Uint8Array(20 * 1024 * 1024 + 1));
    expect((await refusal(api.getFile(huge))).description).toBe("Bad Request: file is too big");
  });
});

describe("TelegramEmulator updates", () => {
  it("answers a long poll when an update is enqueued, and offset confirms updates", async () => {
    const { emulator, api } = await start();
    const begun = performance.now();
    const poll = api.getUpdates({ timeout: 5 });
    await until(() => emulator.callsTo("getUpdates")[0]);
    emulator.enqueue({ message: { message_id: 1, text: "hi" } });
    expect(await poll).toEqual([{ update_id: 1, message: { message_id: 1, text: "hi" } }]);
    expect(performance.now() - begun).toBeLessThan(2000);

    emulator.enqueue({ message: { message_id: 2, text: "again" } });
    emulator.enqueue({ message: { message_id: 3, text: "and again" } });
    expect((await api.getUpdates({ offset: 2, limit: 1 })).map((update) => update.update_id)).toEqual([2]);
    expect((await api.getUpdates({ offset: 3 })).map((update) => update.update_id)).toEqual([3]);
    expect(await api.getUpdates({ offset: 4 })).toEqual([]);
  });

  it("answers an empty long poll when its timeout passes", async () => {
    const { api } = await start();
    const begun = performance.now();
    expect(await api.getUpdates({ timeout: 1 })).toEqual([]);
    expect(performance.now() - begun).toBeGreaterThanOrEqual(950);
  });

  it("ends a long poll with 409 when another getUpdates arrives", async () => {
    const { emulator, api } = await start();
    const first = api.getUpdates({ timeout: 5 });
    await until(() => emulator.callsTo("getUpdates")[0]);
    const second = api.getUpdates({ timeout: 5 });
    const conflict = await refusal(first);
    expect([conflict.error_code, conflict.description]).toEqual([
      409,
      "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    ]);
    emulator.enqueue({ message: { text: "hi" } });
    expect(await second).toHaveLength(1);
  });

  it("refuses getUpdates with 409 while a webhook is set", async () => {
    const { emulator, api } = await start();
    emulator.enqueue({ message: { text: "pending" } });
    await api.setWebhook("https://example.com/hook", {
      secret_token: "s3cret",
      allowed_updates: ["message"],
      drop_pending_updates: true,
    });
    expect(emulator.webhook).toEqual({
      url: "https://example.com/hook",
      secretToken: "s3cret",
      allowedUpdates: ["message"],
      dropPendingUpdates: true,
      maxConnections: 40, // Telegram's default
    });
    expect(await api.getWebhookInfo()).toMatchObject({
      url: "https://example.com/hook",
      pending_update_count: 0,
      max_connections: 40,
      allowed_updates: ["message"],
    });

    const conflict = await refusal(api.getUpdates());
    expect([conflict.error_code, conflict.description]).toEqual([
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    ]);
    await api.deleteWebhook();
    expect(emulator.webhook).toBeUndefined();
    expect(await api.getUpdates()).toEqual([]);
  });

  it("delivers an update to the webhook with the secret header", async () => {
    const received: { headers: IncomingHttpHeaders; body: unknown }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        res.writeHead(200, { "content-type": "application/json" }).end('{"handled":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const { emulator, api } = await start();
      const update = { message: { message_id: 1, chat: { id: 42, type: "private" }, text: "hi" } };
      await expect(emulator.deliver(update)).rejects.toThrow(/no webhook/);

      await api.setWebhook(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, {
        secret_token: "s3cret",
      });
      expect(await emulator.deliver(update)).toEqual({ status: 200, body: { handled: true } });
      await emulator.deliver(update, { secret: "other" });
      await emulator.deliver(update, { secret: null });

      expect(received.map(({ headers }) => headers["x-telegram-bot-api-secret-token"])).toEqual([
        "s3cret",
        "other",
        undefined,
      ]);
      expect(received[0]?.headers["content-type"]).toBe("application/json");
      expect(received[0]?.body).toEqual({ update_id: 1, ...update });
      expect(received.map(({ body }) => (body as { update_id: number }).update_id)).toEqual([1, 2, 3]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("cuts a pending long poll when closed", async () => {
    const { emulator, api } = await start();
    const poll = api.getUpdates({ timeout: 30 });
    await until(() => emulator.callsTo("getUpdates")[0]);
    const begun = performance.now();
    await emulator.close();
    await expect(poll).rejects.toThrow();
    expect(performance.now() - begun).toBeLessThan(1000);
  });
});
