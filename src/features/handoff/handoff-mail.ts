import type { InboundMessage } from "../../bridge/inbound.js";
import type { TranscriptEntry } from "../../bridge/transcript.js";
import { knownZone } from "../../common/zoned-time.js";
import type { Mail } from "../../mail/smtp-mailer.js";

/** Who asked for a person, where, and when: what a handoff mail and its follow-ups are about. */
export interface HandoffCase {
  conversation: string;
  /** Channel name, e.g. `telegram`. */
  channel: string;
  user: InboundMessage["user"];
  /** Epoch milliseconds. */
  requestedAt: number;
  /** The chatbot's TimeZone, for the times in the mail; UTC when unknown. */
  timeZone?: string | undefined;
}

const CHANNEL_NAMES: Record<string, string> = {
  telegram: "Telegram",
  slack: "Slack",
  whatsapp: "WhatsApp",
  web: "web chat",
};

/** "Ana (@ana) on Telegram": who a mail about a conversation is about, and where. */
export function who(handoff: HandoffCase): string {
  const name = handoff.user.name ?? handoff.user.handle ?? `user ${handoff.user.id}`;
  const handle = handoff.user.name && handoff.user.handle ? ` (${handoff.user.handle})` : "";
  return `${name}${handle} on ${CHANNEL_NAMES[handoff.channel] ?? handoff.channel}`;
}

/** "14 Jun 2026, 10:00 (Europe/Madrid)": a moment as the mails about conversations show it; UTC when unknown. */
export function time(at: number, timeZone: string | undefined): string {
  const zone = knownZone(timeZone);
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  }).format(at);
  return `${text} (${zone})`;
}

/** Text made safe to put in HTML, in an element or an attribute. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** A conversation's lines, timed and named, as plain text and as HTML. */
export function lines(entries: TranscriptEntry[], handoff: HandoffCase): { text: string; html: string } {
  const speaker = (entry: TranscriptEntry) => (entry.from === "user" ? (handoff.user.name ?? "User") : "Bot");
  const stamp = (entry: TranscriptEntry) => time(entry.at, handoff.timeZone).replace(/ \(.*\)$/, "");
  return {
    text: entries.map((entry) => `[${stamp(entry)}] ${speaker(entry)}: ${entry.text}`).join("\n"),
    html: entries
      .map(
        (entry) =>
          `<p><small>${escapeHtml(stamp(entry))}</small> <b>${escapeHtml(speaker(entry))}:</b> ${escapeHtml(entry.text).replaceAll("\n", "<br>")}</p>`,
      )
      .join("\n"),
  };
}

/**
 * The mail that hands a conversation to a person: who asked, where, a link to reach them where the platform has one,
 * when, and the conversation so far; plain text and HTML. The subject says who and where.
 */
export function handoffMail(to: string, handoff: HandoffCase, transcript: TranscriptEntry[]): Mail {
  const subject = `Talk to a human: ${who(handoff)}`;
  const link = handoff.user.link;
  const when = time(handoff.requestedAt, handoff.timeZone);
  const said = lines(transcript, handoff);
  const text = [
    `${who(handoff)} asked to talk to a person.`,
    "",
    link ? `Reach them: ${link}` : "Answer them on the platform where they wrote.",
    `Time: ${when}`,
    `Conversation: ${handoff.conversation}`,
    "",
    "The conversation so far:",
    said.text || "(nothing yet)",
    "",
    "The bot stays silent in this conversation until the user sends /bot, an operator resumes it, or the handoff times out.",
  ].join("\n");
  const html = [
    `<p><b>${escapeHtml(who(handoff))}</b> asked to talk to a person.</p>`,
    link
      ? `<p>Reach them: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`
      : "<p>Answer them on the platform where they wrote.</p>",
    `<p>Time: ${escapeHtml(when)}<br>Conversation: <code>${escapeHtml(handoff.conversation)}</code></p>`,
    "<h3>The conversation so far</h3>",
    said.html || "<p>(nothing yet)</p>",
  ].join("\n");
  return { to, subject, text, html };
}

/** The user's messages written since the handoff, forwarded to the same address in one mail. */
export function followUpMail(to: string, handoff: HandoffCase, messages: TranscriptEntry[]): Mail {
  const said = lines(messages, handoff);
  const link = handoff.user.link;
  return {
    to,
    subject: `Re: Talk to a human: ${who(handoff)}`,
    text: [`${who(handoff)} wrote again:`, "", said.text, "", link ? `Reach them: ${link}` : ""].join("\n").trim(),
    html: [
      `<p><b>${escapeHtml(who(handoff))}</b> wrote again:</p>`,
      said.html,
      link ? `<p>Reach them: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : "",
    ].join("\n"),
  };
}
