import type { PhraseLanguage } from "../../bridge/phrase-language.js";
import { knownZone, type WallClock, wallClock, zoneOffset } from "../../common/zoned-time.js";

/** A wall-clock time in a time zone, to the minute (a viewing starts on one), and the instant it stands for there. */
export interface ZonedTime extends Omit<WallClock, "second"> {
  /** The IANA zone the fields are in. */
  timeZone: string;
  /** Epoch milliseconds of that wall-clock time in that zone. */
  at: number;
}

const WEEKDAYS: Record<string, number> = {
  sunday: 0,
  sun: 0,
  domingo: 0,
  monday: 1,
  mon: 1,
  lunes: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  martes: 2,
  wednesday: 3,
  wed: 3,
  miercoles: 3,
  thursday: 4,
  thu: 4,
  thurs: 4,
  jueves: 4,
  friday: 5,
  fri: 5,
  viernes: 5,
  saturday: 6,
  sat: 6,
  sabado: 6,
};

const MONTHS: Record<string, number> = {
  january: 1,
  jan: 1,
  enero: 1,
  february: 2,
  feb: 2,
  febrero: 2,
  march: 3,
  mar: 3,
  marzo: 3,
  april: 4,
  apr: 4,
  abril: 4,
  may: 5,
  mayo: 5,
  june: 6,
  jun: 6,
  junio: 6,
  july: 7,
  jul: 7,
  julio: 7,
  august: 8,
  aug: 8,
  agosto: 8,
  september: 9,
  sep: 9,
  sept: 9,
  septiembre: 9,
  setiembre: 9,
  october: 10,
  oct: 10,
  octubre: 10,
  november: 11,
  nov: 11,
  noviembre: 11,
  december: 12,
  dec: 12,
  diciembre: 12,
};

/** A calendar day, as Date.UTC takes it (month 1 to 12). */
interface Day {
  year: number;
  month: number;
  day: number;
}

const DAY_MS = 86_400_000;

/**
 * The instant of a wall-clock time in `timeZone`: the zone's offset is read at a first guess and read again at the
 * result, which settles it also next to a daylight-saving change (a time skipped by the change moves forward).
 */
export function zonedTime(day: Day, hour: number, minute: number, timeZone: string): ZonedTime {
  const asUtc = Date.UTC(day.year, day.month - 1, day.day, hour, minute);
  let at = asUtc - zoneOffset(asUtc, timeZone);
  at = asUtc - zoneOffset(at, timeZone);
  const clock = wallClock(at, timeZone);
  return { year: clock.year, month: clock.month, day: clock.day, hour: clock.hour, minute: clock.minute, timeZone, at };
}

function addDays(day: Day, days: number): Day {
  const moved = new Date(Date.UTC(day.year, day.month - 1, day.day) + days * DAY_MS);
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

const weekdayOf = (day: Day) => new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();

/** Lower case, accents removed, so that "Sábado" and "miércoles" match as typed without them. */
function normalise(text: string): string {
  return text.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "").replace(/\s+/g, " ");
}

/** The day the text names, relative to `today`; undefined when it names none. */
function dayIn(text: string, today: Day): Day | undefined {
  if (/\b(day after tomorrow|pasado manana)\b/.test(text)) return addDays(today, 2);
  // "mañana" alone is tomorrow; "por/de la mañana" is the morning of a day named otherwise.
  if (/\btomorrow\b/.test(text) || /(?<!\bla )\bmanana\b/.test(text)) return addDays(today, 1);
  if (/\b(today|hoy)\b/.test(text)) return today;
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);
  if (iso) return validDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const monthNames = Object.keys(MONTHS).join("|");
  const dayMonth = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?(?: of| de)? (${monthNames})\\b\\.?(?:,? (\\d{4}))?`).exec(
    text,
  );
  const monthDay = new RegExp(`\\b(${monthNames})\\.? (\\d{1,2})(?:st|nd|rd|th)?\\b(?:,? (\\d{4}))?`).exec(text);
  if (dayMonth) return upcoming(today, MONTHS[dayMonth[2] as string] as number, Number(dayMonth[1]), dayMonth[3]);
  if (monthDay) return upcoming(today, MONTHS[monthDay[1] as string] as number, Number(monthDay[2]), monthDay[3]);
  const weekday = new RegExp(`\\b(${Object.keys(WEEKDAYS).join("|")})\\b`).exec(text);
  if (weekday) {
    const wanted = WEEKDAYS[weekday[1] as string] as number;
    // The next such day; the same weekday as today means today's, as "Saturday at 10" said on a Saturday morning does.
    return addDays(today, (wanted - weekdayOf(today) + 7) % 7);
  }
  return undefined;
}

function validDay(year: number, month: number, day: number): Day | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { year, month, day } : undefined;
}

/** Day and month in the given year, or the next time they come when no year is written. */
function upcoming(today: Day, month: number, day: number, year: string | undefined): Day | undefined {
  if (year) return validDay(Number(year), month, day);
  const thisYear = validDay(today.year, month, day);
  if (thisYear && Date.UTC(thisYear.year, month - 1, day) >= Date.UTC(today.year, today.month - 1, today.day)) {
    return thisYear;
  }
  return validDay(today.year + 1, month, day);
}

/**
 * The time of day the text names: "10am", "3:30 pm", "15:00", "15h", "noon", "at 4", "a las 10", "a las 5 de la
 * tarde". A bare hour from 1 to 7 ("at 4") is taken in the afternoon: nobody visits a home at 4 in the night.
 */
function timeIn(text: string): { hour: number; minute: number } | undefined {
  if (/\b(noon|midday|mediodia)\b/.test(text)) return { hour: 12, minute: 0 };
  const afternoon = /\b(de la tarde|por la tarde|de la noche)\b/.test(text);
  const meridiem = /\b(\d{1,2})(?:[:.](\d{2}))? ?(am|pm|a\.m\.|p\.m\.)(?![a-z])/.exec(text);
  if (meridiem) {
    const hour = Number(meridiem[1]);
    if (hour < 1 || hour > 12) return undefined;
    const pm = (meridiem[3] as string).startsWith("p");
    return clock((hour % 12) + (pm ? 12 : 0), Number(meridiem[2] ?? 0));
  }
  const colon = /\b(\d{1,2})[:h](\d{2})\b/.exec(text);
  if (colon) return withAfternoon(clock(Number(colon[1]), Number(colon[2])), afternoon);
  const hours = /\b(\d{1,2}) ?h\b/.exec(text);
  if (hours) return withAfternoon(clock(Number(hours[1]), 0), afternoon);
  const bare = /\b(?:at|a las|a la|@) ?(\d{1,2})\b(?![/-])/.exec(text);
  if (bare) {
    const hour = Number(bare[1]);
    return withAfternoon(clock(hour >= 1 && hour <= 7 ? hour + 12 : hour, 0), afternoon);
  }
  return undefined;
}

function clock(hour: number, minute: number): { hour: number; minute: number } | undefined {
  return hour <= 23 && minute <= 59 ? { hour, minute } : undefined;
}

function withAfternoon(
  time: { hour: number; minute: number } | undefined,
  afternoon: boolean,
): { hour: number; minute: number } | undefined {
  return time && afternoon && time.hour < 12 ? { ...time, hour: time.hour + 12 } : time;
}

/**
 * The concrete date and time a user's words name, in English or Spanish, relative to `now` in `timeZone`:
 * "tomorrow 10am", "Saturday at 3pm", "12 May 10:00", "May 12 at 9:30", "2026-06-14 10:00", "mañana a las 10",
 * "el sábado a las 5 de la tarde", "12 de mayo 10:00". Both a day and a time are needed: "Saturday morning" or
 * "next week" are undefined (kept as written by the caller). A time already past is undefined too.
 */
export function understandTime(text: string, now: Date, timeZone: string): ZonedTime | undefined {
  const zone = knownZone(timeZone);
  const words = normalise(text);
  const today = wallClock(now.getTime(), zone);
  const day = dayIn(words, today);
  const time = timeIn(words);
  if (!day || !time) return undefined;
  const understood = zonedTime(day, time.hour, time.minute, zone);
  return understood.at > now.getTime() ? understood : undefined;
}

/**
 * "Saturday 14 June at 10:00" as the confirmation and the mail say it; in Spanish ("es", the user's confirmation in
 * a Spanish-speaking chatbot) "sábado 14 de junio a las 10:00".
 */
export function describeTime(time: ZonedTime, language: PhraseLanguage = "en"): string {
  const date = new Intl.DateTimeFormat(language === "es" ? "es-ES" : "en-GB", {
    timeZone: "UTC",
    weekday: "long",
    day: "numeric",
    month: "long",
  }).format(Date.UTC(time.year, time.month - 1, time.day));
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(time.hour)}:${pad(time.minute)}`;
  return `${date.replace(",", "")} ${language === "es" ? "a las" : "at"} ${clock}`;
}
