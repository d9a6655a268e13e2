import type { Mail } from "../../mail/smtp-mailer.js";
import type { Lead } from "../domain.js";
import type { SessionTranscript } from "../store/api-store.js";
import { listingVisitLines } from "./listing-visit-lines.js";
import { type Day, zonedDay } from "./zoned-time.js";

/** A daily mail without its recipient. */
export type DigestMail = Pick<Mail, "subject" | "text" | "html">;

/** What both digests are about: whose day, which day, read in which zone. */
export interface DigestDay {
  chatbotName: string;
  day: Day;
  timeZone: string;
}

/**
 * Conversations in one mail at most: a very busy day would otherwise make a mail too large to deliver. The
 * rest are counted, and ChatContentHistory has them all.
 */
export const MAX_CONVERSATIONS_PER_MAIL = 200;

/** Text as HTML: markup characters escaped, line breaks kept. */
const htmlText = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`).replace(/\n/g, "<br>");

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** "Friday, May 1, 2026": the day as the recipient says it. */
function longDate(day: Day): string {
  return new Intl.DateTimeFormat("en-US", { dateStyle: "full", timeZone: "UTC" }).format(new Date(`${day}T12:00Z`));
}

/** A clock time of the chatbot's zone, e.g. 09:14. */
function clock(timeZone: string): (instant: Date) => string {
  const format = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return (instant) => format.format(instant);
}

/** Continuation lines of a multi-line text, indented under its first line. */
const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);

function page(title: string, summary: string, body: string): string {
  return [
    '<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#222">',
    `<h2 style="margin-bottom:4px">${htmlText(title)}</h2>`,
    `<p style="color:#555;margin-top:0">${htmlText(summary)}</p>`,
    body,
    "</body></html>",
  ].join("\n");
}

/** The heading of the listing link visits in the leads digest. */
const VISITS_HEADING = "Visits from listing links and QR codes";

/** The day's conversations: each with its messages and their times; `transcripts` must not be empty. */
export function chatLogsMail(about: DigestDay, transcripts: SessionTranscript[]): DigestMail {
  const time = clock(about.timeZone);
  const shown = transcripts.slice(0, MAX_CONVERSATIONS_PER_MAIL);
  const messages = transcripts.reduce((sum, transcript) => sum + transcript.messages.length, 0);
  const title = `${about.chatbotName}: conversations on ${longDate(about.day)}`;
  const summary = `${plural(transcripts.length, "conversation", "conversations")}, ${plural(messages, "message", "messages")}; times in ${about.timeZone}.`;
  const more =
    transcripts.length > shown.length
      ? `…and ${plural(transcripts.length - shown.length, "more conversation", "more conversations")}: read them with ChatContentHistory.`
      : undefined;

  const heading = ({ session }: SessionTranscript) => {
    const started = zonedDay(session.createdAt, about.timeZone);
    const since = started === about.day ? "" : ` (continued from ${started})`;
    return `Conversation ${session.id}${session.uri ? ` · ${session.uri}` : ""}${since}`;
  };
  const text = [
    title,
    summary,
    ...shown.flatMap((transcript) => [
      "",
      heading(transcript),
      ...transcript.messages.map(
        (message) => `  ${time(message.createdAt)} ${message.role}: ${indent(message.content, "        ")}`,
      ),
    ]),
    ...(more ? ["", more] : []),
  ].join("\n");

  const html = page(
    title,
    summary,
    [
      ...shown.map((transcript) =>
        [
          `<h3 style="margin-bottom:4px">${htmlText(heading(transcript))}</h3>`,
          '<table cellpadding="4" style="border-collapse:collapse">',
          ...transcript.messages.map(
            (message) =>
              `<tr><td style="color:#777;vertical-align:top">${time(message.createdAt)}</td>` +
              `<td style="vertical-align:top"><b>${message.role}</b></td>` +
              `<td>${htmlText(message.content)}</td></tr>`,
          ),
          "</table>",
        ].join("\n"),
      ),
      ...(more ? [`<p>${htmlText(more)}</p>`] : []),
    ].join("\n"),
  );
  const subject = `${about.chatbotName}: ${plural(transcripts.length, "conversation", "conversations")} on ${about.day}`;
  return { subject, text, html };
}

/**
 * The day's leads: handoff requests first, then viewing requests, then contact details, then one line per listing
 * whose link opened conversations (ListingVisit leads, counted per channel); `leads` must not be empty.
 */
export function leadsMail(about: DigestDay, leads: Lead[]): DigestMail {
  const time = clock(about.timeZone);
  const handoffs = leads.filter((lead) => lead.type === "Handoff");
  const viewings = leads.filter((lead) => lead.type === "Viewing");
  const contacts = leads.filter((lead) => lead.type === "Contact");
  const visits = listingVisitLines(leads);
  const visitCount = leads.filter((lead) => lead.type === "ListingVisit").length;
  const title = `${about.chatbotName}: leads on ${longDate(about.day)}`;
  // Viewing requests and link visits are named only on days that have some.
  const viewingCount = viewings.length > 0 ? `${plural(viewings.length, "viewing request", "viewing requests")}, ` : "";
  const visitsCount = visitCount > 0 ? `, ${plural(visitCount, "listing link visit", "listing link visits")}` : "";
  const summary = `${plural(handoffs.length, "request", "requests")} to talk to a person, ${viewingCount}${plural(contacts.length, "contact detail", "contact details")} left in conversations${visitsCount}; times in ${about.timeZone}.`;
  const line = (lead: Lead) =>
    [
      time(lead.createdAt),
      lead.name,
      lead.email,
      lead.phone,
      lead.sessionId === null ? "" : `conversation ${lead.sessionId}`,
    ]
      .filter((part) => part !== "")
      .join(" · ");
  const sections = [
    { heading: "Requests to talk to a person", leads: handoffs },
    { heading: "Requests for a viewing", leads: viewings },
    { heading: "Contact details left in conversations", leads: contacts },
  ].filter((section) => section.leads.length > 0);

  const text = [
    title,
    summary,
    ...sections.flatMap((section) => [
      "",
      section.heading,
      ...section.leads.flatMap((lead) => [
        `  ${line(lead)}`,
        ...(lead.content ? [`      “${indent(lead.content, "       ")}”`] : []),
      ]),
    ]),
    ...(visits.length > 0 ? ["", VISITS_HEADING, ...visits.map((visit) => `  ${visit}`)] : []),
  ].join("\n");

  const html = page(
    title,
    summary,
    sections
      .map((section) =>
        [
          `<h3 style="margin-bottom:4px">${htmlText(section.heading)}</h3>`,
          "<ul>",
          ...section.leads.map(
            (lead) =>
              `<li><b>${htmlText(line(lead))}</b>` +
              (lead.content ? `<br><span style="color:#444">${htmlText(lead.content)}</span>` : "") +
              "</li>",
          ),
          "</ul>",
        ].join("\n"),
      )
      .concat(
        visits.length > 0
          ? [
              `<h3 style="margin-bottom:4px">${VISITS_HEADING}</h3>`,
              `<ul>${visits.map((visit) => `<li>${htmlText(visit)}</li>`).join("")}</ul>`,
            ]
          : [],
      )
      .join("\n"),
  );
  const counted = [
    ...(visitCount < leads.length ? [plural(leads.length - visitCount, "lead", "leads")] : []),
    ...(visitCount > 0 ? [plural(visitCount, "listing link visit", "listing link visits")] : []),
  ];
  const subject = `${about.chatbotName}: ${counted.join(", ")} on ${about.day}`;
  return { subject, text, html };
}
