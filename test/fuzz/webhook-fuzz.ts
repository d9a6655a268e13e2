import { screenEventsPayload, screenInteractivePayload } from "../../adapters/slack/schema.js";
import { readUpdate } from "../../adapters/telegram/schema.js";
import { webChatMessage } from "../../adapters/web/routes.js";
import { VisitorIdentity } from "../../adapters/web/visitor-identity.js";
import { readDelivery } from "../../adapters/whatsapp/schema.js";
import { slackSignature } from "../emulators/slack-deliver.js";
import { hubSignature } from "../emulators/whatsapp-webhook.js";
import { fuzzer, type Json } from "./mutate.js";
import {
  FUZZ_WEB_CHAT_SECRET,
  slackActionSeeds,
  slackEventSeeds,
  telegramSeeds,
  webChatSeeds,
  whatsappSeeds,
} from "./webhook-seeds.js";

/** The inbound routes fuzzed: each platform's webhook with valid signatures or secret, and the web chat's post. */
export const TARGETS = ["telegram", "whatsapp", "slack-events", "slack-actions", "web"] as const;
export type Target = (typeof TARGETS)[number];

/**
 * What the bridge must do with a body: `fits` may be used (asked upstream, answered on the platform); `malformed` is
 * authentic but does not fit, so it is acknowledged, counted in chatbridge_malformed_payloads_total and never used;
 * `unused` is never used either, without being counted (a kind acknowledged unread, a web chat post refused, a body
 * refused for its size before its signature could be checked).
 */
export type Verdict = "fits" | "malformed" | "unused";

export interface FuzzCase {
  target: Target;
  /** The payload's text: the body, or for Slack's interactivity the form's `payload` field. */
  payload: string;
  verdict: Verdict;
}

/** The secrets the fuzzed bridge was configured with, to authenticate the bodies as its platforms would. */
export interface FuzzSecrets {
  telegramSecret: string;
  whatsappAppSecret: string;
  slackSigningSecret: string;
}

const webIdentity = new VisitorIdentity(Buffer.from(FUZZ_WEB_CHAT_SECRET, "utf8"));

const KiB = 1024;
const MiB = 1024 * KiB;
/** The routes' body limits (routes.ts of telegram, whatsapp and web; slack/http-receiver.ts). */
const LIMITS: Record<Target, number> = {
  telegram: MiB,
  whatsapp: 3 * MiB,
  "slack-events": MiB,
  "slack-actions": MiB,
  web: 16 * KiB,
};

const SEEDS: Record<Target, () => Json[]> = {
  telegram: telegramSeeds,
  whatsapp: whatsappSeeds,
  "slack-events": slackEventSeeds,
  "slack-actions": slackActionSeeds,
  web: webChatSeeds,
};

/**
 * `count` payloads for `target`, reproducible from `seed`: mostly mutated seeds (some replaced by non-objects),
 * one in twelve not JSON at all, each with the verdict the schemas give it.
 */
export function fuzzCases(target: Target, count: number, seed: number): FuzzCase[] {
  const random = fuzzer(seed * 31 + TARGETS.indexOf(target));
  const seeds = SEEDS[target]();
  const cases: FuzzCase[] = [];
  for (let n = 0; n < count; n++) {
    const original = random.pick(seeds);
    const payload = random.chance(1 / 12)
      ? random.text(JSON.stringify(original))
      : JSON.stringify(random.variant(original));
    cases.push({ target, payload, verdict: verdictOf(target, payload) });
  }
  return cases;
}

/** The body a case is sent as. */
export function bodyOf(fuzzCase: FuzzCase): string {
  return fuzzCase.target === "slack-actions"
    ? new URLSearchParams({ payload: fuzzCase.payload }).toString()
    : fuzzCase.payload;
}

function verdictOf(target: Target, payload: string): Verdict {
  const tooLarge = Buffer.byteLength(bodyOf({ target, payload, verdict: "fits" })) > LIMITS[target];
  switch (target) {
    case "telegram": {
      // The secret header is checked before the body: a body too large is authentic, hence counted.
      if (tooLarge) return "malformed";
      // body-parser drops a byte-order mark and reads an empty body as {}.
      const text = payload.replace(/^\ufeff/, "");
      const value = text === "" ? { json: {} } : parsed(text);
      return value !== undefined && readUpdate(value.json).ok ? "fits" : "malformed";
    }
    case "whatsapp": {
      if (tooLarge) return "unused";
      const value = parsed(payload);
      return value !== undefined && readDelivery(value.json).ok ? "fits" : "malformed";
    }
    case "slack-events":
    case "slack-actions": {
      if (tooLarge) return "unused";
      const value = parsed(payload);
      if (value === undefined) return "malformed";
      const screened = (target === "slack-events" ? screenEventsPayload : screenInteractivePayload)(value.json);
      return screened.kind === "dispatch" ? "fits" : screened.kind === "malformed" ? "malformed" : "unused";
    }
    case "web": {
      const text = payload.replace(/^\ufeff/, "");
      const value = text === "" ? { json: {} } : parsed(text);
      const message = value === undefined ? undefined : webChatMessage.safeParse(value.json);
      // A post of the right shape is taken only with a visitor token this bridge signed.
      const fits = !tooLarge && message?.success === true && webIdentity.verify(message.data.visitorId) !== undefined;
      return fits ? "fits" : "unused";
    }
  }
}

function parsed(text: string): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** What the bridge answered to one case. */
export interface FuzzAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** The path of each target in the bridge. */
const PATHS: Record<Target, string> = {
  telegram: "/webhooks/telegram",
  whatsapp: "/webhooks/whatsapp",
  "slack-events": "/webhooks/slack/events",
  "slack-actions": "/webhooks/slack/actions",
  web: "/webchat/messages",
};

/** Posts a case to the bridge at `base`, authenticated as its platform would (signed now, for Slack's clock check). */
export async function post(base: string, fuzzCase: FuzzCase, secrets: FuzzSecrets): Promise<FuzzAnswer> {
  const body = bodyOf(fuzzCase);
  const headers: Record<string, string> = { "content-type": "application/json" };
  switch (fuzzCase.target) {
    case "telegram":
      headers["x-telegram-bot-api-secret-token"] = secrets.telegramSecret;
      break;
    case "whatsapp":
      headers["x-hub-signature-256"] = hubSignature(secrets.whatsappAppSecret, body);
      break;
    case "slack-events":
    case "slack-actions": {
      const timestamp = Math.floor(Date.now() / 1000);
      headers["x-slack-request-timestamp"] = String(timestamp);
      headers["x-slack-signature"] = slackSignature(secrets.slackSigningSecret, timestamp, body);
      if (fuzzCase.target === "slack-actions") headers["content-type"] = "application/x-www-form-urlencoded";
      break;
    }
    case "web":
      break;
  }
  const response = await fetch(`${base}${PATHS[fuzzCase.target]}`, { method: "POST", headers, body });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    body: await response.text(),
  };
}

/** Lines of a stack trace ("    at parseDelivery (…)") and absolute paths of this machine. */
const STACK = /^\s*at\s|\(\/|\/node_modules\/|[A-Za-z]:\\/m;

/**
 * What is wrong with an answer, if anything: a 5xx, HTML, a stack trace or an absolute path, or a body that is not
 * JSON (Slack's interactivity acknowledgements alone may be empty).
 */
export function problemOf(answer: FuzzAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (/<html|<!doctype|<pre>/i.test(answer.body)) return "an HTML page";
  if (STACK.test(answer.body) || answer.body.includes(process.cwd())) return "a stack trace or a path";
  if (answer.body === "") return answer.status === 200 ? undefined : `an empty ${answer.status}`;
  if (!answer.contentType.startsWith("application/json")) return `content-type ${answer.contentType}`;
  try {
    JSON.parse(answer.body);
  } catch {
    return "a body that is not JSON";
  }
  return undefined;
}

/** The outcome of posting cases: answers by status, and the first problems found. */
export interface FuzzRun {
  statuses: Map<number, number>;
  problems: { fuzzCase: FuzzCase; answer: FuzzAnswer; problem: string }[];
  answered: number;
}

/** Posts every case, `concurrency` at a time, and checks each answer with {@link problemOf}. */
export async function postAll(
  base: string,
  cases: FuzzCase[],
  secrets: FuzzSecrets,
  concurrency = 32,
): Promise<FuzzRun> {
  const run: FuzzRun = { statuses: new Map(), problems: [], answered: 0 };
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const fuzzCase = cases[next++] as FuzzCase;
      const answer = await post(base, fuzzCase, secrets);
      run.answered++;
      run.statuses.set(answer.status, (run.statuses.get(answer.status) ?? 0) + 1);
      const problem = problemOf(answer);
      if (problem && run.problems.length < 20) run.problems.push({ fuzzCase, answer, problem });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return run;
}

/** chatbridge_malformed_payloads_total by channel, summed over reasons, from the bridge's /metrics. */
export async function malformedCounts(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^chatbridge_malformed_payloads_total\{channel="(\w+)",reason="\w+"\} (\d+)$/gm)) {
    const [, channel, value] = match;
    counts[channel as string] = (counts[channel as string] ?? 0) + Number(value);
  }
  return counts;
}

/** The channel a target's malformed payloads are counted under. */
export const CHANNEL_OF: Record<Target, string> = {
  telegram: "telegram",
  whatsapp: "whatsapp",
  "slack-events": "slack",
  "slack-actions": "slack",
  web: "web",
};

/** A short description of a case for failure messages: target, verdict and the payload's start. */
export function describeCase(fuzzCase: FuzzCase): string {
  const start = fuzzCase.payload.slice(0, 300);
  return `${fuzzCase.target} (${fuzzCase.verdict}): ${start}${fuzzCase.payload.length > 300 ? "…" : ""}`;
}
