import { describe, expect, it } from "vitest";
import { escapeText, viewingIcs } from "../../../src/features/viewings/viewing-ics.js";
import { zonedTime } from "../../../src/features/viewings/viewing-time.js";

/** The content lines, unfolded (RFC 5545 3.1). */
function unfold(ics: string): string[] {
  return ics.replace(/\r\n /g, "").split("\r\n");
}

describe("viewingIcs", () => {
  const start = zonedTime({ year: 2026, month: 6, day: 13 }, 10, 0, "Europe/Madrid");
  const ics = viewingIcs({
    uid: "telegram:default:42@chatbridge",
    start,
    endAt: start.at + 3_600_000,
    stampedAt: Date.parse("2026-06-10T07:00:00Z"),
    summary: "Viewing: 12 Oak St, Austin; with Ana",
    location: "12 Oak St, Austin, TX 78701",
    description: `Listing: https://homes.test/listing/tx-1001\nReach them: @ana\\ana — ${"é".repeat(80)}`,
    url: "https://homes.test/listing/tx-1001",
  });

  it("writes one VEVENT in the zone, an hour long, with CRLF lines", () => {
    expect(ics.endsWith("\r\n")).toBe(true);
    expect(ics.replace(/\r\n/g, "")).not.toContain("\n");
    const lines = unfold(ics);
    expect(lines[0]).toBe("BEGIN:VCALENDAR");
    expect(lines).toContain("VERSION:2.0");
    expect(lines).toContain("TZID:Europe/Madrid");
    expect(lines).toContain("TZOFFSETTO:+0200");
    expect(lines).toContain("UID:telegram:default:42@chatbridge");
    expect(lines).toContain("DTSTAMP:20260610T070000Z");
    expect(lines).toContain("DTSTART;TZID=Europe/Madrid:20260613T100000");
    expect(lines).toContain("DTEND;TZID=Europe/Madrid:20260613T110000");
    expect(lines).toContain("SUMMARY:Viewing: 12 Oak St\\, Austin\\; with Ana");
    expect(lines).toContain("LOCATION:12 Oak St\\, Austin\\, TX 78701");
    expect(lines.filter((line) => line === "BEGIN:VEVENT")).toHaveLength(1);
    const description = lines.find((line) => line.startsWith("DESCRIPTION:"));
    expect(description).toBe(
      `DESCRIPTION:Listing: https://homes.test/listing/tx-1001\\nReach them: @ana\\\\ana — ${"é".repeat(80)}`,
    );
  });

  it("folds lines at 75 octets without splitting a character", () => {
    for (const line of ics.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(ics).not.toContain("\uFFFD");
  });

  it("writes a zone west of UTC with a negative offset", () => {
    const chicago = zonedTime({ year: 2026, month: 1, day: 5 }, 9, 30, "America/Chicago");
    const lines = unfold(
      viewingIcs({
        uid: "u@chatbridge",
        start: chicago,
        endAt: chicago.at + 3_600_000,
        stampedAt: 0,
        summary: "s",
        location: "l",
        description: "d",
      }),
    );
    expect(lines).toContain("TZOFFSETFROM:-0600");
    expect(lines).toContain("DTSTART;TZID=America/Chicago:20260105T093000");
    expect(lines).toContain("DTEND;TZID=America/Chicago:20260105T103000");
  });

  it("escapes text per RFC 5545", () => {
    expect(escapeText("a\\b;c,d\r\ne\nf")).toBe("a\\\\b\\;c\\,d\\ne\\nf");
  });
});
