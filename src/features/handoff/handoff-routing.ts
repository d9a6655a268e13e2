import type { OutgoingText } from "../../bridge/channel.js";
import type { ChatbotSettingsReader } from "../../bridge/chatbot-settings.js";
import type { InboundMessage } from "../../bridge/inbound.js";
import type { Transcript } from "../../bridge/transcript.js";
import type { LeadInput } from "../../client/index.js";
import type { HandoffConfig } from "../../config/config.js";
import type { HandoffDesk } from "./handoff-desk.js";
import type { HandoffMetrics } from "./handoff-metrics.js";
import { handoffIntent } from "./handoff-request.js";
import { handoffTexts } from "./handoff-texts.js";

/** How many of a conversation's last lines a handoff mail shows. */
const TRANSCRIPT_LINES = 20;

/** Sends a message that must arrive, in the conversation at hand. */
type Send = (text: OutgoingText) => Promise<void>;

/** The bot a conversation belongs to, as handoffs need it. */
export interface HandoffBot {
  settings: ChatbotSettingsReader;
  /**
   * Records a request for a person as a lead with the chatbot API (the embedded server's LeadAdd, which its daily
   * leads digest lists); best effort, never throws (the hosted platform has no such operation).
   */
  recordLead(lead: Omit<LeadInput, "serialNumber" | "sessionID">): Promise<void>;
}

/**
 * Where talking to a person meets the conversation flow: before a message is asked, it may be a request for a
 * person, a message for the person who has the conversation, or /bot; after an answer, the user may be offered a
 * person. Keeps the conversation's transcript on the way, for the handoff mail.
 */
export class HandoffRouting {
  constructor(
    readonly desk: HandoffDesk,
    private readonly transcript: Transcript,
    private readonly config: HandoffConfig,
    private readonly metrics: Pick<HandoffMetrics, "handoffs">,
  ) {}

  /**
   * While a person has the conversation the bot stays silent and forwards what the user writes (or hands back on
   * /bot); a request for a person (`/human`, the offered button, a configured phrase) mails the chatbot's
   * TalkToHumanEmail or HANDOFF_EMAIL and, once the mail is accepted, tells the user TalkToHumanResponseMessage or
   * HANDOFF_MESSAGE (the honest state of things otherwise; a mail that could only be queued is confirmed by the
   * desk when a retry gets it accepted). True when the messages were handled and are not to be asked; otherwise
   * they are noted in the transcript, to be asked.
   */
  async handle(
    conversation: string,
    batch: InboundMessage[],
    text: string,
    bot: HandoffBot,
    send: Send,
  ): Promise<boolean> {
    const last = batch.at(-1) as InboundMessage;
    const intent = handoffIntent(text, this.config.keywords);
    const said = { from: "user" as const, text: userLine(batch), at: Date.now() };
    const active = await this.desk.active(conversation);
    if (active && intent !== "bot") {
      await this.desk.followUp(active, last, said.text);
      await this.transcript.add(conversation, said);
      return true;
    }
    if (intent === "bot") {
      await this.desk.resume(conversation, "user");
      const language = active?.language ?? (await bot.settings.read())?.AIResponseLanguage;
      await send({ text: handoffTexts(language).botBack, format: "plain" });
      return true;
    }
    await this.transcript.add(conversation, said);
    if (intent !== "human") return false;
    const chatbot = await bot.settings.read();
    const { outcome, reply } = await this.desk.request(last, conversation, {
      mailTo: chatbot?.TalkToHumanEmail?.trim() || this.config.email,
      confirmation: chatbot?.TalkToHumanResponseMessage?.trim() || this.config.message,
      timeZone: chatbot?.TimeZone,
      language: chatbot?.AIResponseLanguage,
      transcript: await this.transcript.recent(conversation, TRANSCRIPT_LINES),
    });
    this.metrics.handoffs.inc({ channel: last.channel, outcome });
    await send({ text: reply, format: "plain" });
    await this.transcript.add(conversation, { from: "bot", text: reply, at: Date.now() });
    if (outcome === "sent" || outcome === "queued") {
      const { name, handle } = last.user;
      await bot.recordLead({
        Type: "Handoff",
        Name: name ?? handle,
        // A web visitor gives an e-mail address or a phone number with the request; WhatsApp's handle is the number.
        Email: handle && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(handle) ? handle : undefined,
        Phone: handle && /^\+?[\d\s().-]{7,20}$/.test(handle) ? handle : undefined,
        Content: said.text,
      });
    }
    return true;
  }

  /**
   * Notes the answer in the transcript and, after HANDOFF_OFFER_AFTER answers in a row the chatbot had none for,
   * offers a "Talk to a human" button — only where a request could really reach someone (mail configured, an
   * address known).
   */
  async answered(
    conversation: string,
    answer: string,
    noAnswer: boolean,
    settings: ChatbotSettingsReader,
    send: Send,
  ): Promise<void> {
    await this.transcript.add(conversation, { from: "bot", text: answer, at: Date.now() });
    if (!(await this.desk.noteAnswer(conversation, noAnswer, this.config.offerAfterNoAnswers))) return;
    const chatbot = await settings.read();
    if (!this.desk.canMail || !(chatbot?.TalkToHumanEmail || this.config.email)) return;
    const texts = handoffTexts(chatbot?.AIResponseLanguage);
    await send({ text: texts.offer, format: "plain", quickReplies: [texts.button] });
  }
}

/** What the user sent, as a transcript line: the texts, and a note for each file ("[photo]", "[voice message]"). */
function userLine(batch: InboundMessage[]): string {
  const notes: Record<string, string> = {
    image: "[photo]",
    voice: "[voice message]",
    audio: "[audio]",
    video: "[video]",
    document: "[file]",
  };
  return batch
    .flatMap((message) => [
      ...message.media.map((media) => notes[media.kind] ?? `[${media.label ?? "something it cannot read"}]`),
      message.text.trim(),
    ])
    .filter(Boolean)
    .join(" ");
}
