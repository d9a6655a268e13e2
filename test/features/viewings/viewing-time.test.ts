import { describe, expect, it } from "vitest";
import { describeTime, understandTime, zonedTime } from "../../../src/features/viewings/viewing-time.js";

// Wednesday 10 June 2026, 09:00 in Madrid (07:00 UTC).
const NOW = new Date("2026-06-10T07:00:00Z");
const MADRID = "Europe/Madrid";

/** What the text is understood as, as "YYYY-MM-DD HH:MM", or undefined. */
function read(text: string, zone = MADRID, now = NOW): string | undefined {
  const time = understandTime(text, now, zone);
  if (!time) return undefined;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${time.year}-${pad(time.month)}-${pad(time.day)} ${pad(time.hour)}:${pad(time.minute)}`;
}

describe("understandTime", () => {
  it("reads common English forms relative to now in the chatbot's time zone", () => {
    expect(read("tomorrow 10am")).toBe("2026-06-11 10:00");
    expect(read("Saturday at 3pm")).toBe("2026-06-13 15:00");
    expect(read("next saturday at 3:30 pm please")).toBe("2026-06-13 15:30");
    expect(read("12 May 10:00")).toBe("2027-05-12 10:00");
    expect(read("June 14th at 10")).toBe("2026-06-14 10:00");
    expect(read("14 June at 4")).toBe("2026-06-14 16:00");
    expect(read("2026-06-20 09:15")).toBe("2026-06-20 09:15");
    expect(read("today at noon")).toBe("2026-06-10 12:00");
    expect(read("the day after tomorrow at 11am")).toBe("2026-06-12 11:00");
    // The same weekday as today is today's, when the time is still ahead.
    expect(read("Wednesday 6pm")).toBe("2026-06-10 18:00");
  });

  it("reads common Spanish forms", () => {
    expect(read("mañana a las 10")).toBe("2026-06-11 10:00");
    expect(read("el sábado a las 5 de la tarde")).toBe("2026-06-13 17:00");
    expect(read("el sabado por la mañana a las 11:30")).toBe("2026-06-13 11:30");
    expect(read("pasado mañana 12:00")).toBe("2026-06-12 12:00");
    expect(read("12 de junio a las 18h")).toBe("2026-06-12 18:00");
  });

  it("understands nothing when a day or a time is missing, or the time is past", () => {
    for (const vague of [
      "next week",
      "Saturday morning",
      "whenever suits",
      "at 10am",
      "sábado por la tarde",
      "today at 8am",
    ]) {
      expect(read(vague), vague).toBeUndefined();
    }
    expect(read("31 February 10:00")).toBeUndefined();
    expect(read("tomorrow at 25:00")).toBeUndefined();
  });

  it("gives the instant of the wall-clock time in the zone, across daylight saving", () => {
    const summer = understandTime("Saturday at 10am", NOW, MADRID);
    expect(new Date(summer?.at ?? 0).toISOString()).toBe("2026-06-13T08:00:00.000Z");
    const winter = zonedTime({ year: 2026, month: 12, day: 5 }, 10, 0, MADRID);
    expect(new Date(winter.at).toISOString()).toBe("2026-12-05T09:00:00.000Z");
    const chicago = understandTime("tomorrow 10am", NOW, "America/Chicago");
    expect(new Date(chicago?.at ?? 0).toISOString()).toBe("2026-06-11T15:00:00.000Z");
    // An unknown zone falls back to UTC.
    expect(understandTime("tomorrow 10am", NOW, "Mars/Olympus")?.timeZone).toBe("UTC");
  });

  it("describes a time as the confirmation says it", () => {
    const time = understandTime("Saturday at 10am", NOW, MADRID);
    expect(time && describeTime(time)).toBe("Saturday 13 June at 10:00");
  });
});
