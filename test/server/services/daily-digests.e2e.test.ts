import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChatbotSettings } from "../../../src/api/types.js";
import { createSmtpMailer, type Mailer } from "../../../src/mail/smtp-mailer.js";
import { DigestScheduler } from "../../../src/server/digest-scheduler.js";
import type { Chatbot, ChatSession, MessageRole } from "../../../src/server/domain.js";
import { defaultSettings } from "../../../src/server/services/default-settings.js";
import { LeadService } from "../../../src/server/services/leads.js";
import type { ApiStore } from "../../../src/server/store/api-store.js";
import { openApiStore } from "../../../src/server/store/open-store.js";
import { availableBackends, type Backend } from "../../support/api-harness.js";
import { dropSchema, freshSchemaName, TEST_POSTGRES_URL } from "../../support/postgres.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { newMessage, newWorkspace, PinnableClock } from "../store/fixtures.js";

const silent = pino({ level: "silent" });
const FROM = "Homes bot <bot@example.com>";

/** A fresh database of the backend that stores can be opened on again (a restart) and dropped at the end. */
function freshDatabase(backend: Backend) {
  if (backend === "sqlite") {
    const dataDir = tempDataDir();
    return {
      open: (now: () => Date) => openApiStore({ dataDir, now }),
      dispose: async () => removeDataDir(dataDir),
    };
  }
  const schema = freshSchemaName();
  return {
    open: (now: () => Date) => openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir: ":memory:", schema, now }),
    dispose: () => dropSchema(schema),
  };
}

describe.each(await availableBackends())("daily digests (%s)", (backend) => {
  let sink: SmtpSink;
  let mailer: Mailer;
  let database: ReturnType<typeof freshDatabase>;
  /** Stamps what the store writes (messages, leads). */
  let stamp: PinnableClock;
  /** The schedulers' clock. */
  let now: Date;
  const stores: ApiStore[] = [];
  let store: ApiStore;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mailer = createSmtpMailer({ smtpUrl: sink.url(), from: FROM });
  });
  afterAll(async () => {
    mailer.close();
    await sink.stop();
  });
  beforeEach(async () => {
    sink.received.length = 0;
    database = freshDatabase(backend);
    stamp = new PinnableClock();
    store = await openStore();
  });
  afterEach(async () => {
    for (const opened of stores.splice(0)) await opened.close();
    await database.dispose();
  });

  /** Another connection to the test's database, as a second process (or the same one restarted) would open. */
  async function openStore(): Promise<ApiStore> {
    const opened = await database.open(stamp.now);
    stores.push(opened);
    return opened;
  }

  const scheduler = (on: ApiStore = store) => new DigestScheduler({ store: on, mailer, log: silent, now: () => now });

  /** One scheduler pass at `iso`. */
  async function tickAt(iso: string, on: DigestScheduler) {
    now = new Date(iso);
    await on.tick();
  }

  async function chatbot(timeZone: string, settings: ChatbotSettings): Promise<Chatbot> {
    return store.chatbots.create({
      workspaceId: (await newWorkspace(store)).id,
      serialNumber: `bot-${Math.random().toString(36).slice(2)}`,
      type: 0,
      settings: { ...defaultSettings({ timeZone, model: "1" }), ...settings },
    });
  }

  async function session(bot: Chatbot, iso: string, uri = "web"): Promise<ChatSession> {
    stamp.set(iso);
    return store.sessions.create({ chatbotId: bot.id, uri });
  }

  /** A message at `iso`; a user's is searched for contact details, as ClientAsk does. */
  async function say(on: ChatSession, iso: string, role: MessageRole, content: string) {
    stamp.set(iso);
    await store.messages.add(newMessage(on, role, content));
    if (role === "User") await new LeadService(store).recordContacts(on, content);
  }

  const subjects = () => sink.received.map((mail) => mail.subject).sort();
  const mailWith = (subject: string) => {
    const mail = sink.received.find((received) => received.subject === subject);
    if (!mail) throw new Error(`no mail "${subject}" among ${JSON.stringify(subjects())}`);
    return mail;
  };

  it("mails each chatbot its own day's conversations and leads at its own midnight (Chicago and Tokyo)", async () => {
    const prairie = await chatbot("America/Chicago", {
      Name: "Prairie Homes",
      EmailForDailyChatLogs: "logs@prairie.example",
    });
    const sakura = await chatbot("Asia/Tokyo", {
      Name: "Sakura & Co",
      EmailForDailyChatLogs: "logs@sakura.example",
      EmailForDailyLeads: "leads@sakura.example",
    });
    // Prairie (UTC-5 in May): 23:59 on 30 April, then 1 May from 09:00 to 23:59:30, then 00:00:30 on 2 May.
    const late = await session(prairie, "2026-05-01T04:59:00Z");
    await say(late, "2026-05-01T04:59:00Z", "User", "Late on April 30");
    const morning = await session(prairie, "2026-05-01T14:00:00Z", "telegram:42");
    await say(morning, "2026-05-01T14:00:00Z", "User", "Three bedrooms in Austin?");
    await say(morning, "2026-05-01T14:00:05Z", "AI", "Here are two homes:\n• 12 Oak St\n• 3 Elm Rd");
    await say(morning, "2026-05-02T04:59:30Z", "User", "Thanks, good night");
    await say(morning, "2026-05-02T05:00:30Z", "User", "Good morning again");
    // Sakura (UTC+9): 23:59:59 on 30 April, 1 May from 00:00:00 to 23:55, then 00:00:10 on 2 May.
    const before = await session(sakura, "2026-04-30T14:59:59Z");
    await say(before, "2026-04-30T14:59:59Z", "User", "Before May");
    const condos = await session(sakura, "2026-04-30T15:00:00Z", "https://sakura.example/chat");
    await say(condos, "2026-04-30T15:00:00Z", "User", "Condos near Shibuya?");
    await say(condos, "2026-04-30T15:00:05Z", "AI", "Two <condos> match & one is new.");
    const aiko = await session(sakura, "2026-05-01T14:50:00Z");
    await say(aiko, "2026-05-01T14:50:00Z", "User", "I'm Aiko: aiko@example.jp, 03-1234-5678, budget ¥80,000,000");
    stamp.set("2026-05-01T14:55:00Z");
    await new LeadService(store).add(sakura, {
      sessionID: aiko.id,
      Type: "Handoff",
      Name: "Aiko Tanaka",
      Email: "aiko@example.jp",
      Phone: "",
      Content: "Please have an agent call me",
    });
    await say(aiko, "2026-05-01T15:00:10Z", "User", "Still there? My cell is 090-1234-5678");
    const digests = scheduler();

    // Neither midnight has come: only the day before (30 April) is mailed, to each its own.
    await tickAt("2026-05-01T14:59:00Z", digests);
    expect(subjects()).toEqual([
      "Prairie Homes: 1 conversation on 2026-04-30",
      "Sakura & Co: 1 conversation on 2026-04-30",
    ]);
    expect(mailWith("Prairie Homes: 1 conversation on 2026-04-30").text).toContain("23:59 User: Late on April 30");
    expect(mailWith("Sakura & Co: 1 conversation on 2026-04-30").text).toContain("23:59 User: Before May");
    sink.received.length = 0;

    // Midnight in Tokyo: Sakura's 1 May, conversations and leads; nothing for Prairie.
    await tickAt("2026-05-01T15:00:30Z", digests);
    expect(subjects()).toEqual(["Sakura & Co: 2 conversations on 2026-05-01", "Sakura & Co: 3 leads on 2026-05-01"]);
    const logs = mailWith("Sakura & Co: 2 conversations on 2026-05-01");
    expect(logs.envelope).toEqual({ from: "bot@example.com", to: ["logs@sakura.example"] });
    expect(logs.from).toEqual({ name: "Homes bot", address: "bot@example.com" });
    expect(logs.text).toContain("Sakura & Co: conversations on Friday, May 1, 2026");
    expect(logs.text).toContain(
      `Conversation ${condos.id} · https://sakura.example/chat\n  00:00 User: Condos near Shibuya?\n  00:00 AI: Two <condos> match & one is new.`,
    );
    expect(logs.text).toContain("23:50 User: I'm Aiko: aiko@example.jp, 03-1234-5678");
    expect(logs.text).not.toMatch(/Before May|Still there|Prairie|Austin/);
    expect(logs.html).toContain("Two &#60;condos&#62; match &#38; one is new.");
    const leads = mailWith("Sakura & Co: 3 leads on 2026-05-01");
    expect(leads.envelope.to).toEqual(["leads@sakura.example"]);
    expect(leads.text).toContain(
      `Requests to talk to a person\n  23:55 · Aiko Tanaka · aiko@example.jp · conversation ${aiko.id}\n      “Please have an agent call me”`,
    );
    expect(leads.text).toContain("Contact details left in conversations");
    expect(leads.text).toContain(`23:50 · aiko@example.jp · conversation ${aiko.id}`);
    expect(leads.text).toContain(`23:50 · 03-1234-5678 · conversation ${aiko.id}`);
    expect(leads.text).not.toMatch(/090-1234-5678|80,000,000 ·/);
    expect(leads.html).toContain("Aiko Tanaka");
    sink.received.length = 0;

    await tickAt("2026-05-02T04:59:59Z", digests);
    expect(sink.received).toEqual([]);

    // Midnight in Chicago: Prairie's 1 May, without the message of 30 April or of 2 May.
    await tickAt("2026-05-02T05:00:30Z", digests);
    expect(subjects()).toEqual(["Prairie Homes: 1 conversation on 2026-05-01"]);
    const prairieLogs = mailWith("Prairie Homes: 1 conversation on 2026-05-01");
    expect(prairieLogs.envelope.to).toEqual(["logs@prairie.example"]);
    expect(prairieLogs.text).toContain(
      [
        `Conversation ${morning.id} · telegram:42`,
        "  09:00 User: Three bedrooms in Austin?",
        "  09:00 AI: Here are two homes:",
        "        • 12 Oak St",
        "        • 3 Elm Rd",
        "  23:59 User: Thanks, good night",
      ].join("\n"),
    );
    expect(prairieLogs.text).not.toMatch(/Late on April 30|Good morning again|Sakura/);
  });

  it("sends a digest once: across passes, concurrent processes and a restart", async () => {
    const bot = await chatbot("America/Chicago", { Name: "Once", EmailForDailyChatLogs: "logs@once.example" });
    const chat = await session(bot, "2026-05-01T15:00:00Z");
    await say(chat, "2026-05-01T15:00:00Z", "User", "Hello");
    const first = scheduler(store);
    const second = scheduler(await openStore());

    now = new Date("2026-05-02T05:00:10Z");
    await Promise.all([first.tick(), second.tick(), first.tick()]);
    await tickAt("2026-05-02T05:01:10Z", first);
    await tickAt("2026-05-02T05:30:00Z", second);
    expect(subjects()).toEqual(["Once: 1 conversation on 2026-05-01"]);

    // A restart: the store and the scheduler are new, the database is the same.
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    const restarted = scheduler(await openStore());
    await tickAt("2026-05-02T09:00:00Z", restarted);
    expect(subjects()).toEqual(["Once: 1 conversation on 2026-05-01"]);
  });

  it("retries a digest the mail server refused for now, and mails it once", async () => {
    const bot = await chatbot("Asia/Tokyo", { Name: "Retry", EmailForDailyLeads: "leads@retry.example" });
    const chat = await session(bot, "2026-05-01T03:00:00Z");
    await say(chat, "2026-05-01T03:00:00Z", "User", "Write to me at mei@example.jp");
    const digests = scheduler();
    sink.failNext("RCPT", 451);

    await tickAt("2026-05-01T15:00:05Z", digests);
    expect(sink.received).toEqual([]);
    await tickAt("2026-05-01T15:00:45Z", digests);
    expect(sink.received).toEqual([]);
    await tickAt("2026-05-01T15:01:05Z", digests);
    expect(subjects()).toEqual(["Retry: 1 lead on 2026-05-01"]);
    expect(sink.received[0]?.text).toContain("12:00 · mei@example.jp");

    await tickAt("2026-05-01T16:00:00Z", digests);
    expect(subjects()).toHaveLength(1);
  });

  it("gives up a digest the mail server refused for good", async () => {
    const bot = await chatbot("Asia/Tokyo", { Name: "Refused", EmailForDailyChatLogs: "nobody@refused.example" });
    await say(await session(bot, "2026-05-01T03:00:00Z"), "2026-05-01T03:00:00Z", "User", "Hi");
    const digests = scheduler();
    sink.failNext("RCPT", 550);

    await tickAt("2026-05-01T15:00:05Z", digests);
    await tickAt("2026-05-01T16:00:05Z", digests);
    await tickAt("2026-05-02T14:00:00Z", digests);

    expect(sink.received).toEqual([]);
    expect(await store.digests.due(new Date("2030-01-01T00:00:00Z"), 10)).toEqual([]);
  });

  it("sends the missed digest of yesterday only, when it starts after midnight", async () => {
    const bot = await chatbot("America/Chicago", {
      Name: "Late start",
      EmailForDailyChatLogs: "logs@late.example",
      EmailForDailyLeads: "leads@late.example",
    });
    for (const [iso, text] of [
      ["2026-04-29T15:00:00Z", "On April 29, call 512-555-0100"],
      ["2026-04-30T15:00:00Z", "On April 30"],
      ["2026-05-01T15:00:00Z", "On May 1"],
    ] as const) {
      await say(await session(bot, iso), iso, "User", text);
    }
    const digests = scheduler();

    // Down since before 29 April; started at 09:00 on 2 May. May 1 had no leads: no leads mail.
    await tickAt("2026-05-02T14:00:00Z", digests);
    expect(subjects()).toEqual(["Late start: 1 conversation on 2026-05-01"]);
    expect(sink.received[0]?.text).toContain("On May 1");

    await tickAt("2026-05-02T20:00:00Z", digests);
    expect(subjects()).toHaveLength(1);
  });

  it("mails nothing for a chatbot without digest addresses, or on a day without conversations", async () => {
    const quiet = await chatbot("UTC", { Name: "Quiet", EmailForDailyChatLogs: "logs@quiet.example" });
    const silentBot = await chatbot("UTC", { Name: "No addresses" });
    await say(await session(silentBot, "2026-05-01T10:00:00Z"), "2026-05-01T10:00:00Z", "User", "me@example.com");
    await say(await session(quiet, "2026-04-30T10:00:00Z"), "2026-04-30T10:00:00Z", "User", "Only on April 30");
    const digests = scheduler();

    await tickAt("2026-05-02T00:00:30Z", digests);

    expect(sink.received).toEqual([]);
  });
});
