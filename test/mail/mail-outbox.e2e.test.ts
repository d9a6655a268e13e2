import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type BridgeMetrics, createBridgeMetrics } from "../../src/bridge/metrics.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { MailOutbox, type MailRetryPolicy, type SettledMail } from "../../src/mail/mail-outbox.js";
import { createSmtpMailer, type Mail, MailError, type Mailer } from "../../src/mail/smtp-mailer.js";
import { SmtpSink } from "../support/smtp-sink.js";
import { removeDataDir, tempDataDir } from "../support/sqlite.js";
import { until } from "../support/waiting.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const MAIL: Mail = {
  to: "agents@example.com",
  subject: "Handoff: a user asks for a person",
  text: "The user wrote: talk to a human",
  html: "<p>The user wrote: <b>talk to a human</b></p>",
};

/** Pino JSON lines written by the outbox, at debug level. */
function capturedLog() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().trim().split("\n"));
      done();
    },
  });
  return { log: createLogger("debug", { destination, pretty: false }), lines };
}

async function counted(metrics: BridgeMetrics, outcome: "sent" | "retry" | "failed"): Promise<number> {
  const { values } = await metrics.mails.get();
  return values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

async function pendingGauge(metrics: BridgeMetrics): Promise<number> {
  return (await metrics.mailsPending.get()).values[0]?.value ?? 0;
}

/** A mailer whose sends never finish, like one cut off by the process dying; counts them. */
function stuckMailer(): Mailer & { sends: number } {
  return {
    sends: 0,
    send() {
      this.sends++;
      return new Promise<void>(() => {});
    },
    close() {},
  };
}

/** A mailer that fails every send with a 451, counting the attempts. */
function failingMailer(): Mailer & { attempts: number } {
  return {
    attempts: 0,
    async send() {
      this.attempts++;
      throw new MailError("451 try again later", true, 451);
    },
    close() {},
  };
}

describe("MailOutbox against a real SMTP server and a SQLite store", () => {
  let dataDir: string;
  let sink: SmtpSink;
  let mailer: Mailer;
  let stores: BridgeStore[];
  let clock: number;
  let metrics: BridgeMetrics;
  let logged: ReturnType<typeof capturedLog>;

  const openStore = async () => {
    const store = await openBridgeStore({ url: "sqlite://bridge.db", dataDir });
    stores.push(store);
    return store;
  };
  const newOutbox = (store: BridgeStore, sender = mailer) =>
    new MailOutbox({ store, mailer: sender, log: logged.log, metrics, now: () => clock });

  beforeEach(async () => {
    dataDir = tempDataDir();
    sink = await SmtpSink.start();
    mailer = createSmtpMailer({ smtpUrl: sink.url(), from: "Homes bot <bot@example.com>" });
    stores = [];
    clock = Date.parse("2026-11-22T10:00:00Z");
    metrics = createBridgeMetrics();
    logged = capturedLog();
  });

  afterEach(async () => {
    mailer.close();
    await sink.stop();
    for (const store of stores) await store.close();
    removeDataDir(dataDir);
  });

  it("sends a mail at once, intact, and keeps nothing", async () => {
    const outbox = newOutbox(await openStore());
    await expect(outbox.submit("handoff:telegram:1", MAIL)).resolves.toBe("sent");
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]).toMatchObject({
      from: { name: "Homes bot", address: "bot@example.com" },
      to: "agents@example.com",
      subject: MAIL.subject,
      text: MAIL.text,
      html: MAIL.html,
    });
    expect(await outbox.pending()).toEqual([]);
    const exposition = await metrics.registry.metrics();
    expect(exposition).toContain('chatbridge_mails_total{outcome="sent"} 1');
    expect(exposition).toContain("chatbridge_mails_pending 0");
  });

  it("queues a mail the server defers (4xx) and delivers it exactly once when it is due", async () => {
    const outbox = newOutbox(await openStore());
    sink.failNext("RCPT", 451);
    await expect(outbox.submit("handoff:telegram:2", MAIL)).resolves.toBe("queued");
    expect(sink.received).toHaveLength(0);
    expect(await outbox.pending()).toEqual([
      { id: "handoff:telegram:2", to: MAIL.to, subject: MAIL.subject, attempts: 1, nextAttemptAt: clock + 30 * SECOND },
    ]);
    expect(await pendingGauge(metrics)).toBe(1);

    await outbox.retryDue();
    expect(sink.received).toHaveLength(0);

    clock += 30 * SECOND;
    await outbox.retryDue();
    await outbox.retryDue();
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]?.subject).toBe(MAIL.subject);
    expect(await outbox.pending()).toEqual([]);
    expect(await counted(metrics, "retry")).toBe(1);
    expect(await counted(metrics, "sent")).toBe(1);
    expect(await pendingGauge(metrics)).toBe(0);
  });

  it("queues a mail while the SMTP server is down and delivers it once the server is back", async () => {
    const outbox = newOutbox(await openStore());
    await sink.stop();
    await expect(outbox.submit("handoff:slack:3", MAIL)).resolves.toBe("queued");
    clock += 30 * SECOND;
    await outbox.retryDue();
    expect(await outbox.pending()).toMatchObject([{ attempts: 2, nextAttemptAt: clock + 2 * MINUTE }]);

    await sink.restart();
    clock += 2 * MINUTE;
    await outbox.retryDue();
    expect(sink.received).toHaveLength(1);
    expect(await outbox.pending()).toEqual([]);
  });

  it("rejects a mail the server refuses for good (5xx) and never retries it", async () => {
    const outbox = newOutbox(await openStore());
    sink.failNext("DATA", 550);
    const refused = await outbox.submit("handoff:whatsapp:4", MAIL).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MailError);
    expect(refused).toMatchObject({ temporary: false, responseCode: 550 });
    expect(await outbox.pending()).toEqual([]);

    clock += DAY;
    await outbox.retryDue();
    expect(sink.received).toHaveLength(0);
    expect(await counted(metrics, "failed")).toBe(1);
    const failure = logged.lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 50);
    expect(failure).toMatchObject({ mailId: "handoff:whatsapp:4", to: MAIL.to, subject: MAIL.subject });
  });

  it("sends one mail for an id submitted twice, one after the other or at the same time", async () => {
    const outbox = newOutbox(await openStore());
    expect(await outbox.submit("handoff:telegram:5", MAIL)).toBe("sent");
    expect(await outbox.submit("handoff:telegram:5", MAIL)).toBe("duplicate");
    const together = await Promise.all([
      outbox.submit("handoff:telegram:6", MAIL),
      outbox.submit("handoff:telegram:6", MAIL),
    ]);
    expect(together.sort()).toEqual(["duplicate", "sent"]);

    sink.failNext("RCPT", 451);
    expect(await outbox.submit("handoff:telegram:7", MAIL)).toBe("queued");
    expect(await outbox.submit("handoff:telegram:7", MAIL)).toBe("duplicate");
    clock += 30 * SECOND;
    await outbox.retryDue();
    expect(sink.received).toHaveLength(3);
  });

  it("leaves a mail being sent to its submit, not to a retry pass running meanwhile", async () => {
    let sends = 0;
    let accept = () => {};
    // Only the first send waits, so a second one from the pass would show at once instead of hanging the test.
    const firstHeld: Mailer = {
      send: () => (++sends === 1 ? new Promise<void>((resolve) => (accept = resolve)) : Promise.resolve()),
      close: () => {},
    };
    const outbox = newOutbox(await openStore(), firstHeld);
    const submitted = outbox.submit("handoff:telegram:8", MAIL);
    await until(() => (sends === 1 ? true : undefined));
    await outbox.retryDue();
    expect(sends).toBe(1);
    accept();
    await expect(submitted).resolves.toBe("sent");
  });

  it("after a restart, a new outbox on the same SQLite file sends what the previous one left", async () => {
    const first = newOutbox(await openStore());
    await sink.stop();
    expect(await first.submit("handoff:telegram:9", MAIL)).toBe("queued");
    // A process that died in the middle of a first attempt leaves its mail due at once.
    const stuck = stuckMailer();
    void newOutbox(stores[0] as BridgeStore, stuck).submit("handoff:telegram:10", { ...MAIL, subject: "second" });
    await until(() => (stuck.sends === 1 ? true : undefined));
    await stores[0]?.close();

    await sink.restart();
    clock += 30 * SECOND;
    const second = newOutbox(await openStore());
    expect((await second.pending()).map((mail) => mail.id)).toEqual(["handoff:telegram:9", "handoff:telegram:10"]);
    second.start(60 * MINUTE);
    await until(() => (sink.received.length === 2 ? true : undefined));
    await second.stop();
    expect(sink.received.map((mail) => mail.subject).sort()).toEqual([MAIL.subject, "second"]);
    expect(await second.pending()).toEqual([]);
    expect(await second.submit("handoff:telegram:9", MAIL)).toBe("duplicate");
  });

  it("keeps a mail's note through a restart and hands it to the next process's listener when the mail goes out", async () => {
    const first = newOutbox(await openStore());
    const firstHeard: SettledMail[] = [];
    first.onSettled(async (settled) => {
      firstHeard.push(settled);
    });
    sink.failNext("RCPT", 451);
    const note = { conversation: "telegram:default:42", confirmation: "A person will write." };
    expect(await first.submit("handoff:telegram:13", MAIL, note)).toBe("queued");
    await stores[0]?.close();

    clock += 30 * SECOND;
    const second = newOutbox(await openStore());
    const heard: SettledMail[] = [];
    second.onSettled(async (settled) => {
      heard.push(settled);
    });
    await second.retryDue();
    expect(sink.received).toHaveLength(1);
    expect(heard).toEqual([{ id: "handoff:telegram:13", outcome: "sent", note }]);
    expect(firstHeard).toEqual([]);
    clock += HOUR;
    await second.retryDue();
    expect(heard).toHaveLength(1);
    expect(sink.received).toHaveLength(1);
  });

  it("never writes the SMTP password into the logs or the errors", async () => {
    const secret = "w0ng-P@ss:word";
    const wrongPassword = createSmtpMailer({ smtpUrl: sink.url(secret), from: "bot@example.com" });
    const outbox = newOutbox(await openStore(), wrongPassword);
    const refused = await outbox.submit("handoff:telegram:11", MAIL).catch((error: unknown) => error);
    wrongPassword.close();
    expect(refused).toMatchObject({ temporary: false, responseCode: 535 });

    const good = newOutbox(stores[0] as BridgeStore);
    sink.failNext("RCPT", 421);
    expect(await good.submit("handoff:telegram:12", MAIL)).toBe("queued");
    await sink.stop();
    clock += 30 * SECOND;
    await good.retryDue();

    const output = logged.lines.join("\n");
    expect(output).toContain("Authentication failed for bridge:***");
    for (const form of [secret, encodeURIComponent(secret), sink.password, encodeURIComponent(sink.password)]) {
      expect(output).not.toContain(form);
      expect(String((refused as Error).stack)).not.toContain(form);
    }
  });
});

describe("MailOutbox on a memory store with scripted mailers", () => {
  let store: BridgeStore;
  let clock: number;
  let metrics: BridgeMetrics;
  let logged: ReturnType<typeof capturedLog>;

  beforeEach(async () => {
    store = await openBridgeStore({ url: "memory://", dataDir: "." });
    clock = 0;
    metrics = createBridgeMetrics();
    logged = capturedLog();
  });

  afterEach(() => store.close());

  const newOutbox = (mailer: Mailer, retry?: Partial<MailRetryPolicy>) =>
    new MailOutbox({ store, mailer, log: logged.log, metrics, now: () => clock, retry });

  /** A mailer answering each send with the next of `replies` (undefined: accepted), then accepting. */
  const scripted = (replies: (MailError | undefined)[]): Mailer & { sends: number } => ({
    sends: 0,
    async send() {
      this.sends++;
      const reply = replies.shift();
      if (reply) throw reply;
    },
    close() {},
  });
  const later = () => new MailError("451 try again later", true, 451);

  /** An outbox whose listener records what it hears. */
  const listening = (mailer: Mailer, retry?: Partial<MailRetryPolicy>) => {
    const outbox = newOutbox(mailer, retry);
    const heard: SettledMail[] = [];
    outbox.onSettled(async (settled) => {
      heard.push(settled);
    });
    return { outbox, heard };
  };

  it("waits 30 s, 2 min, 10 min, 30 min, 1 h, then hourly, and gives up after 3 days", async () => {
    const mailer = failingMailer();
    const outbox = newOutbox(mailer);
    expect(await outbox.submit("handoff:slack:1", MAIL)).toBe("queued");
    const waits: number[] = [];
    let [pending] = await outbox.pending();
    while (pending) {
      waits.push(pending.nextAttemptAt - clock);
      const attempts = mailer.attempts;
      clock = pending.nextAttemptAt - 1;
      await outbox.retryDue();
      expect(mailer.attempts).toBe(attempts);
      clock = pending.nextAttemptAt;
      await outbox.retryDue();
      expect(mailer.attempts).toBe(attempts + 1);
      [pending] = await outbox.pending();
    }
    expect(waits.slice(0, 7)).toEqual([30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, HOUR, HOUR]);
    expect(new Set(waits.slice(4))).toEqual(new Set([HOUR]));
    expect(clock).toBeGreaterThanOrEqual(3 * DAY);
    expect(clock).toBeLessThan(3 * DAY + HOUR);
    expect(await counted(metrics, "failed")).toBe(1);
    expect(await counted(metrics, "retry")).toBe(mailer.attempts - 1);
    expect(await pendingGauge(metrics)).toBe(0);
    const gaveUp = logged.lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 50);
    expect(gaveUp).toMatchObject({
      to: MAIL.to,
      subject: MAIL.subject,
      msg: "gave up a mail still failing at the end of its retries",
    });
    expect(gaveUp.failingForMs).toBe(clock);
  });

  it("gives up at once when a retry is refused for good (5xx)", async () => {
    const replies = [new MailError("451 later", true, 451), new MailError("550 no such user", false, 550)];
    let attempts = 0;
    const outbox = newOutbox({
      async send() {
        attempts++;
        const reply = replies.shift();
        if (reply) throw reply;
      },
      close() {},
    });
    expect(await outbox.submit("handoff:slack:2", MAIL)).toBe("queued");
    clock += 30 * SECOND;
    await outbox.retryDue();
    expect(await outbox.pending()).toEqual([]);
    clock += DAY;
    await outbox.retryDue();
    expect(attempts).toBe(2);
    expect(await counted(metrics, "failed")).toBe(1);
    expect(await counted(metrics, "sent")).toBe(0);
  });

  it("rejects a mail it could not store, sends nothing, and lets the same id be submitted again", async () => {
    let sent = 0;
    const outbox = newOutbox({
      async send() {
        sent++;
      },
      close() {},
    });
    vi.spyOn(store.keyv, "set").mockRejectedValueOnce(new Error("disk full"));
    await expect(outbox.submit("handoff:slack:3", MAIL)).rejects.toThrow("disk full");
    expect(sent).toBe(0);
    expect(await outbox.pending()).toEqual([]);
    expect(await outbox.submit("handoff:slack:3", MAIL)).toBe("sent");
    expect(sent).toBe(1);
  });

  it("tells its listener, with the note, when a retry delivers a queued mail — not when submit delivers it", async () => {
    const { outbox, heard } = listening(scripted([undefined, later()]));
    expect(await outbox.submit("handoff:slack:5", MAIL, { conversation: "a" })).toBe("sent");
    expect(await outbox.submit("handoff:slack:6", MAIL, { conversation: "b" })).toBe("queued");
    expect(await outbox.submit("handoff:slack:7", MAIL)).toBe("sent");
    await outbox.retryDue();
    expect(heard).toEqual([]);
    clock += 30 * SECOND;
    await outbox.retryDue();
    await outbox.retryDue();
    expect(heard).toEqual([{ id: "handoff:slack:6", outcome: "sent", note: { conversation: "b" } }]);
  });

  it("tells its listener when it gives a queued mail up, refused for good or failing past the deadline", async () => {
    const refused = new MailError("550 no such user", false, 550);
    const { outbox, heard } = listening(scripted([later(), refused, ...Array.from({ length: 4 }, later)]), {
      delaysMs: [SECOND],
      giveUpAfterMs: 3 * SECOND,
    });
    expect(await outbox.submit("handoff:slack:8", MAIL, { conversation: "refused" })).toBe("queued");
    clock += SECOND;
    await outbox.retryDue();
    expect(heard).toEqual([
      { id: "handoff:slack:8", outcome: "failed", note: { conversation: "refused" }, error: refused },
    ]);

    expect(await outbox.submit("handoff:slack:9", MAIL, { conversation: "late" })).toBe("queued");
    for (let second = 1; second <= 3; second++) {
      clock += SECOND;
      await outbox.retryDue();
    }
    expect(heard).toHaveLength(2);
    expect(heard[1]).toMatchObject({ id: "handoff:slack:9", outcome: "failed", note: { conversation: "late" } });
    expect((heard[1] as { error: MailError }).error.temporary).toBe(true);
    expect(await outbox.pending()).toEqual([]);
  });

  it("waits for its listener before dropping the mail: a process dying meanwhile sends it and tells again", async () => {
    const mailer = scripted([later()]);
    const dying = newOutbox(mailer);
    let heardByDying = 0;
    // The listener of a process that dies in the middle of it never finishes.
    dying.onSettled(() => {
      heardByDying++;
      return new Promise<void>(() => {});
    });
    expect(await dying.submit("handoff:slack:10", MAIL, { conversation: "c" })).toBe("queued");
    clock += 30 * SECOND;
    void dying.retryDue();
    await until(() => (heardByDying === 1 ? true : undefined));
    expect(await store.sets.members("mail-outbox:pending")).toEqual(["handoff:slack:10"]);

    const { outbox: next, heard } = listening(mailer);
    await next.retryDue();
    expect(mailer.sends).toBe(3);
    expect(heard).toEqual([{ id: "handoff:slack:10", outcome: "sent", note: { conversation: "c" } }]);
    expect(await next.pending()).toEqual([]);
  });

  it("logs a listener that fails, and does not send the mail again for it", async () => {
    const mailer = scripted([later()]);
    const outbox = newOutbox(mailer);
    outbox.onSettled(async () => {
      throw new Error("the channel is gone");
    });
    expect(await outbox.submit("handoff:slack:11", MAIL, { conversation: "c" })).toBe("queued");
    clock += 30 * SECOND;
    await outbox.retryDue();
    clock += HOUR;
    await outbox.retryDue();
    expect(mailer.sends).toBe(2);
    expect(await outbox.pending()).toEqual([]);
    const failure = logged.lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 50);
    expect(failure).toMatchObject({
      mailId: "handoff:slack:11",
      outcome: "sent",
      err: { message: "the channel is gone" },
    });
  });

  it("retries on the policy it is given", async () => {
    const mailer = failingMailer();
    const outbox = newOutbox(mailer, { delaysMs: [100, 250], giveUpAfterMs: 1000 });
    expect(await outbox.submit("handoff:slack:12", MAIL)).toBe("queued");
    const waits: number[] = [];
    let [pending] = await outbox.pending();
    while (pending) {
      waits.push(pending.nextAttemptAt - clock);
      clock = pending.nextAttemptAt;
      await outbox.retryDue();
      [pending] = await outbox.pending();
    }
    expect(waits).toEqual([100, 250, 250, 250, 250]);
    expect(clock).toBe(1100);
  });

  it("drops a listed id whose mail is gone from the store", async () => {
    const outbox = newOutbox(failingMailer());
    expect(await outbox.submit("handoff:slack:4", MAIL)).toBe("queued");
    await store.keyv.delete("mail-outbox:mail:handoff:slack:4");
    await outbox.retryDue();
    expect(await store.sets.members("mail-outbox:pending")).toEqual([]);
    expect(await pendingGauge(metrics)).toBe(0);
  });
});
