import type { TranscriptEntry } from "../../bridge/transcript.js";
import type { Mail } from "../../mail/smtp-mailer.js";
import { escapeHtml, type HandoffCase, lines, time, who } from "../handoff/handoff-mail.js";
import type { ListingCard } from "../listings/listing-card.js";
import { VIEWING_LENGTH_MS, viewingIcs } from "./viewing-ics.js";
import { describeTime, type ZonedTime } from "./viewing-time.js";

/** A request to visit a listing, as the agency's mail tells it. */
export interface ViewingCase extends HandoffCase {
  mlsNumber: string;
  /** The listing's card, when the listing could still be found. */
  listing: ListingCard | undefined;
  /** The preferred time as the user wrote it. */
  preferred: string;
  /** The date and time understood from it, when it named one. */
  understood?: ZonedTime | undefined;
  /** How the agency reaches the user: a link, a handle, an address or a number. */
  contact: string;
  /** Unique to the request: the calendar event's UID is made of it. */
  requestId: string;
}

/** The listing's address, or "MLS <number>" when it has none or is gone. */
export function listingName(viewing: Pick<ViewingCase, "listing" | "mlsNumber">): string {
  return viewing.listing?.address || `MLS ${viewing.mlsNumber}`;
}

/** The listing's facts, one a line: price, address, page, MLS number. */
function listingLines(viewing: ViewingCase): string[] {
  const card = viewing.listing;
  if (!card) return [`MLS: ${viewing.mlsNumber} (no longer found in the listings)`];
  return [
    `Price: ${card.price}`,
    `Address: ${card.address || "(not given)"}`,
    `Listing: ${card.url}`,
    `MLS: ${card.mlsNumber}`,
  ];
}

/**
 * The mail that asks the agency for a viewing: the listing, the preferred time as written and as understood, how
 * to reach the user, and the conversation so far; with a calendar file (`viewing.ics`) only when a concrete time
 * was understood. The subject names the listing and who asks.
 */
export function viewingMail(to: string, viewing: ViewingCase, transcript: TranscriptEntry[]): Mail {
  const name = listingName(viewing);
  const subject = `Viewing request: ${name} — ${who(viewing)}`;
  const understood = viewing.understood
    ? `${describeTime(viewing.understood)} (${viewing.understood.timeZone})`
    : "no date and time could be read from it: please agree one with them";
  const said = lines(transcript, viewing);
  const facts = [
    ...listingLines(viewing),
    "",
    `Preferred time, as written: "${viewing.preferred}"`,
    `Understood as: ${understood}`,
    `Reach them: ${viewing.contact}`,
    `Requested: ${time(viewing.requestedAt, viewing.timeZone)}`,
    `Conversation: ${viewing.conversation}`,
  ];
  const text = [
    `${who(viewing)} would like to visit ${name}.`,
    "",
    ...facts,
    "",
    "The conversation so far:",
    said.text || "(nothing yet)",
    "",
    "They were told the agency will confirm the viewing with them.",
  ].join("\n");
  const html = [
    `<p><b>${escapeHtml(who(viewing))}</b> would like to visit ${escapeHtml(name)}.</p>`,
    `<p>${facts.filter(Boolean).map(escapeHtml).join("<br>\n")}</p>`,
    "<h3>The conversation so far</h3>",
    said.html || "<p>(nothing yet)</p>",
  ].join("\n");
  const mail: Mail = { to, subject, text, html };
  if (viewing.understood) {
    const ics = viewingIcs({
      uid: `${viewing.requestId}@chatbridge`,
      start: viewing.understood,
      endAt: viewing.understood.at + VIEWING_LENGTH_MS,
      stampedAt: viewing.requestedAt,
      summary: `Viewing: ${name} with ${viewing.user.name ?? viewing.user.handle ?? "a client"}`,
      location: viewing.listing?.address || name,
      description: [
        `Viewing requested by ${who(viewing)}.`,
        `Listing: ${viewing.listing?.url ?? `MLS ${viewing.mlsNumber}`}`,
        `Reach them: ${viewing.contact}`,
      ].join("\n"),
      url: viewing.listing?.url,
    });
    mail.attachments = [
      { filename: "viewing.ics", contentType: "text/calendar; charset=utf-8; method=PUBLISH", content: ics },
    ];
  }
  return mail;
}
