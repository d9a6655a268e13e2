import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { shownText, WhatsAppEmulator, type WhatsAppSentMessage } from "../../emulators/whatsapp.js";
import { listingPolls, morePolls } from "../../support/listing-polls.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

/** The approved alert template the emulated business account has: three body variables (docs/channels.md). */
export const ALERT_TEMPLATE = { name: "home_alert", language: "en_US", bodyParameters: 3 };

/**
 * A WhatsApp number's alerts under test: the Cloud API emulator and bridges whose alerts run on one clock,
 * {@link clock} (noon UTC until a test moves it) — the emulator stamps deliveries with it and counts the 24-hour
 * window on it — and a scripted chatbot in UTC whose listings the tests change, polled every 300 ms.
 */
export class WhatsAppAlertsScene {
  clock = Date.parse("2026-11-28T12:00:00Z");
  running: RunningBridge | undefined;

  private constructor(
    readonly whatsapp: WhatsAppEmulator,
    readonly chatbot: ScriptedChatbot,
  ) {}

  static async open(): Promise<WhatsAppAlertsScene> {
    let scene: WhatsAppAlertsScene | undefined;
    const [whatsapp, chatbot] = await Promise.all([
      WhatsAppEmulator.start({ now: () => scene?.clock ?? Date.now(), templates: [ALERT_TEMPLATE] }),
      ScriptedChatbot.start(),
    ]);
    chatbot.welcome = { ...chatbot.welcome, TimeZone: "UTC" };
    scene = new WhatsAppAlertsScene(whatsapp, chatbot);
    return scene;
  }

  /** Starts a bridge on the store that `store` names, with `env` over the WhatsApp settings (the alert template). */
  async start(store: Record<string, string>, env: Record<string, string> = {}): Promise<RunningBridge> {
    const port = await freePort();
    const config = loadConfig(
      {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        CHATBOT_API_URL: this.chatbot.url,
        CHATBOT_API_KEY: "sk-test",
        CHATBOT_SESSION_KEY: "session-key-test",
        CHATBOT_SERIAL_NUMBER: "homes-chatbot",
        WHATSAPP_ACCESS_TOKEN: this.whatsapp.accessToken,
        WHATSAPP_PHONE_NUMBER_ID: this.whatsapp.phoneNumberId,
        WHATSAPP_APP_SECRET: this.whatsapp.appSecret,
        WHATSAPP_VERIFY_TOKEN: "verify-me",
        WHATSAPP_API_URL: this.whatsapp.url,
        WHATSAPP_API_VERSION: this.whatsapp.version,
        ALERTS_POLL_MINUTES: "0.005",
        ...store,
        ...env,
      },
      { envFile: undefined },
    );
    this.running = await startBridge(config, createLogger("silent"), {
      host: "127.0.0.1",
      alertsClock: () => this.clock,
    });
    return this.running;
  }

  async close(): Promise<void> {
    await this.running?.close(1000);
    await Promise.all([this.whatsapp.close(), this.chatbot.close()]);
  }

  /** The polls of the listings so far. */
  polls(): number {
    return listingPolls(this.chatbot);
  }

  /** Waits for `count` more polls: whatever they queue is on its way by then. */
  pollsPass(count = 3): Promise<void> {
    return morePolls(this.chatbot, count);
  }

  /** The messages the number sent `waId`, in order. */
  sentTo(waId: string): WhatsAppSentMessage[] {
    return this.whatsapp.sentTo(waId);
  }

  /** The alerts the running bridge counted, by outcome (chatbridge_alerts_total in /metrics). */
  async alertsCounted(): Promise<Record<string, number>> {
    const text = await (await fetch(`${this.running?.url}/metrics`)).text();
    const counted: Record<string, number> = {};
    for (const [, outcome, value] of text.matchAll(/^chatbridge_alerts_total\{[^}]*outcome="(\w+)"[^}]*\} (\d+)$/gm)) {
      counted[outcome as string] = Number(value);
    }
    return counted;
  }

  /**
   * `waId` writes `text` (stamped with the scene's clock); resolves once the number sent them `replies` more
   * messages (WhatsApp's pacing spaces a user's messages about 8 s apart after two).
   */
  async say(waId: string, text: string, replies = 1): Promise<WhatsAppSentMessage[]> {
    const before = this.sentTo(waId).length;
    const delivery = this.whatsapp.delivery([{ type: "text", text: { body: text } }], { from: waId, name: "Ana" });
    const { status } = await this.whatsapp.deliver(`${this.running?.url}/webhooks/whatsapp`, delivery);
    if (status !== 200) throw new Error(`the bridge answered the webhook with ${status}`);
    await until(() => (this.sentTo(waId).length >= before + replies ? true : undefined), 30_000);
    return this.sentTo(waId).slice(before);
  }

  /** Saves "3+ bedrooms for sale in Austin up to $600,000" through /alert (greeted first); returns the last reply. */
  async saveAustinSearch(waId: string): Promise<string | undefined> {
    await this.say(waId, "/alert", 2);
    for (const answer of ["Austin", "for sale", "3"]) await this.say(waId, answer);
    const saved = (await this.say(waId, "600k")).at(-1);
    return saved && shownText(saved);
  }
}
