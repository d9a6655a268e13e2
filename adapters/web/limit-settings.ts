import { z } from "zod";

/** So many requests per so many seconds; undefined where a budget is `off`. */
export interface RateBudget {
  points: number;
  seconds: number;
}

/** A budget for each visitor and for each client address; either may be off. */
export interface ScopedBudgets {
  visitor: RateBudget | undefined;
  ip: RateBudget | undefined;
}

/** How much each visitor and each client address may do on the web chat (WEB_CHAT_LIMITS). */
export interface WebChatLimitSettings {
  /** `POST /webchat/messages`. */
  messages: ScopedBudgets;
  /** `POST /webchat/visitors`: per address only, as a new identity has no visitor yet. */
  identities: RateBudget | undefined;
  /** `POST /webchat/uploads`. */
  uploads: ScopedBudgets;
  /** Event streams (`GET /webchat/events`) open at once on one instance. */
  streams: { visitor: number | undefined; ip: number | undefined };
}

/**
 * What a demanding operator expects with nothing set. A person types a message every few seconds at most, so 20 a
 * minute never stops one, while a script is stopped within a minute; an address gets three times a visitor's budget,
 * for a household or an office behind one address. Identities are asked once per browser, and again only when
 * storage is cleared: 30 an hour per address leaves room for an office and stops minting visitors to escape the
 * per-visitor budgets. A visitor's tabs each hold one stream: 3 covers a few tabs.
 */
export const DEFAULT_WEB_CHAT_LIMITS: WebChatLimitSettings = {
  messages: { visitor: { points: 20, seconds: 60 }, ip: { points: 60, seconds: 60 } },
  identities: { points: 30, seconds: 3600 },
  uploads: { visitor: { points: 20, seconds: 600 }, ip: { points: 60, seconds: 600 } },
  streams: { visitor: 3, ip: 20 },
};

/** The defaults written in the variable's own syntax, for the docs and the fix. */
export const DEFAULT_WEB_CHAT_LIMITS_TEXT = "messages=20/1m,60/1m identities=30/1h uploads=20/10m,60/10m streams=3,20";

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/** `20/1m` (20 per minute; `20/m` too), `5/30s`, `30/1h`, or `off`. */
function rate(text: string): RateBudget | undefined {
  if (text === "off") return undefined;
  const [, points, amount, unit] = /^(\d{1,6})\/(\d{0,5})([smh])$/.exec(text) ?? [];
  const seconds = Number(amount || 1) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
  if (!points || Number(points) < 1 || !(seconds >= 1)) {
    throw new Error(`${JSON.stringify(text)} is not a budget like 20/1m, 30/1h or off`);
  }
  return { points: Number(points), seconds };
}

/** `3` open streams, or `off`. */
function count(text: string): number | undefined {
  if (text === "off") return undefined;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1)
    throw new Error(`${JSON.stringify(text)} is not a count like 3 or off`);
  return Number(text);
}

/** `<visitor>,<address>`: both parts are required, so that nobody turns a budget off by leaving it out. */
function pair<T>(name: string, text: string, each: (part: string) => T): { visitor: T; ip: T } {
  const parts = text.split(",");
  if (parts.length !== 2) {
    const example = DEFAULT_WEB_CHAT_LIMITS_TEXT.split(" ").find((entry) => entry.startsWith(`${name}=`));
    throw new Error(`${name} takes two budgets, per visitor and per address, e.g. ${example}`);
  }
  return { visitor: each(parts[0] ?? ""), ip: each(parts[1] ?? "") };
}

/**
 * Reads WEB_CHAT_LIMITS: entries `kind=value` separated by spaces or `;`, each replacing that kind's defaults
 * (kinds not named keep theirs): `messages=<visitor>,<address>` and `uploads=…` as rates (`20/1m`), `identities=<rate>`
 * per address, `streams=<visitor>,<address>` as counts; `off` turns one budget off.
 * @throws Error naming the entry that is not understood.
 */
export function parseWebChatLimits(text: string): WebChatLimitSettings {
  const limits = structuredClone(DEFAULT_WEB_CHAT_LIMITS);
  for (const entry of text.split(/[\s;]+/).filter(Boolean)) {
    const equals = entry.indexOf("=");
    const [name, value] = equals < 0 ? [entry, ""] : [entry.slice(0, equals), entry.slice(equals + 1)];
    switch (name) {
      case "messages":
        limits.messages = pair(name, value, rate);
        break;
      case "uploads":
        limits.uploads = pair(name, value, rate);
        break;
      case "identities":
        limits.identities = rate(value);
        break;
      case "streams":
        limits.streams = pair(name, value, count);
        break;
      default:
        throw new Error(`${JSON.stringify(name)} is not one of messages, identities, uploads, streams`);
    }
  }
  return limits;
}

/** WEB_CHAT_LIMITS as the web plugin declares it: unset for the defaults. */
export const webChatLimitsVariable = {
  schema: z
    .string()
    .optional()
    .transform((text, context) => {
      try {
        return parseWebChatLimits(text ?? "");
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  fix: `budgets per visitor and per address such as ${DEFAULT_WEB_CHAT_LIMITS_TEXT} (the defaults; name only the kinds to change, off turns a budget off)`,
};
