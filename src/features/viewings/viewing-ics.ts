import { wallClock, zoneOffset } from "../../common/zoned-time.js";
import type { ZonedTime } from "./viewing-time.js";

/** What a viewing's calendar event says. */
export interface ViewingEvent {
  /** Globally unique: the same request always gets the same UID, so a calendar updates rather than duplicates it. */
  uid: string;
  start: ZonedTime;
  /** Epoch milliseconds of the end (the start plus an hour). */
  endAt: number;
  /** Epoch milliseconds of the request: the event's DTSTAMP. */
  stampedAt: number;
  summary: string;
  location: string;
  description: string;
  url?: string | undefined;
}

/** One hour: how long a viewing is put in the calendar for. */
export const VIEWING_LENGTH_MS = 3_600_000;

/** A TEXT value escaped per RFC 5545 3.3.11: backslash, semicolon, comma, and line breaks as `\n`. */
export function escapeText(text: string): string {
  return text
    .replaceAll("\\", "\\\\")
    .replaceAll(";", "\\;")
    .replaceAll(",", "\\,")
    .replace(/\r\n|\r|\n/g, "\\n");
}

/**
 * A content line folded per RFC 5545 3.1: at most 75 octets a line, continued after CRLF and a space, never
 * inside a UTF-8 character.
 */
function fold(line: string): string {
  const pieces: string[] = [];
  let piece = "";
  let octets = 0;
  for (const character of line) {
    const size = Buffer.byteLength(character);
    // Continuation lines start with a space, which counts.
    if (octets + size > (pieces.length === 0 ? 75 : 74)) {
      pieces.push(piece);
      piece = "";
      octets = 0;
    }
    piece += character;
    octets += size;
  }
  pieces.push(piece);
  return pieces.join("\r\n ");
}

const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, "0");

/** `20260614T100000`: a local DATE-TIME of the fields. */
function localStamp(time: Pick<ZonedTime, "year" | "month" | "day" | "hour" | "minute">): string {
  return `${pad(time.year, 4)}${pad(time.month)}${pad(time.day)}T${pad(time.hour)}${pad(time.minute)}00`;
}

/** `20260614T080000Z`: a UTC DATE-TIME. */
function utcStamp(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;
}

/** `+0200`: the zone's offset at the event's start, as TZOFFSETFROM/TO write it. */
function offset(start: ZonedTime): string {
  const minutes = Math.round(zoneOffset(start.at, start.timeZone) / 60_000);
  return `${minutes < 0 ? "-" : "+"}${pad(minutes / 60)}${pad(minutes % 60)}`;
}

/**
 * A calendar file (iCalendar, RFC 5545) with the viewing as one VEVENT, in the chatbot's time zone: DTSTART and
 * DTEND carry its TZID, which the VTIMEZONE defines by the offset in force at the event (the whole rule set of a
 * zone is more than one event an hour long needs, and calendars show the right time from this). Lines end in CRLF
 * and are folded at 75 octets; every text is escaped.
 */
export function viewingIcs(event: ViewingEvent): string {
  const zone = event.start.timeZone;
  const zoneOffset = offset(event.start);
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//chatbridge//viewing request//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VTIMEZONE",
    `TZID:${zone}`,
    "BEGIN:STANDARD",
    "DTSTART:19700101T000000",
    `TZOFFSETFROM:${zoneOffset}`,
    `TZOFFSETTO:${zoneOffset}`,
    "END:STANDARD",
    "END:VTIMEZONE",
    "BEGIN:VEVENT",
    `UID:${event.uid}`,
    `DTSTAMP:${utcStamp(event.stampedAt)}`,
    `DTSTART;TZID=${zone}:${localStamp(event.start)}`,
    `DTEND;TZID=${zone}:${localStamp(wallClock(event.endAt, zone))}`,
    `SUMMARY:${escapeText(event.summary)}`,
    `LOCATION:${escapeText(event.location)}`,
    `DESCRIPTION:${escapeText(event.description)}`,
    ...(event.url ? [`URL:${event.url}`] : []),
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return `${lines.map(fold).join("\r\n")}\r\n`;
}
