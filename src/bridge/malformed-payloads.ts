import type { Counter } from "prom-client";
import type { z } from "zod";
import type { Logger } from "../common/log.js";
import { payloadShape } from "./payload-shape.js";

/**
 * Why an authentic payload was not used: its body is not JSON (or not decodable), it is over the size limit, it does
 * not fit the schema of the fields the bridge reads, or it names an event type the platform does not document.
 */
export type MalformedReason = "unreadable" | "too_large" | "schema" | "unknown_type";

/** A schema's verdict on a payload it refused. */
export interface Refusal {
  reason: "schema" | "unknown_type";
  /** What did not fit (empty for an unknown type). */
  issues: readonly z.core.$ZodIssue[];
}

/** One authentic payload the bridge acknowledged without using it. */
export interface MalformedPayload {
  channel: string;
  botId: string;
  reason: MalformedReason;
  /** The parsed body, when there is one: only its shape is logged. */
  body?: unknown;
  issues?: readonly z.core.$ZodIssue[] | undefined;
}

/** Where adapters report the payloads they acknowledged without using them. */
export type ReportMalformed = (payload: MalformedPayload) => void;

/** Issues logged per payload. */
const MAX_ISSUES = 5;
/** Path segments are keys a sender chose: cut, like the shape's keys. */
const MAX_SEGMENT = 40;

/**
 * Counts each malformed payload in `chatbridge_malformed_payloads_total{channel,reason}` and logs it once, at warn,
 * with its shape (keys and types, never values: no text, no ids, no secrets) and the first schema issues (where and
 * what was expected; zod's messages name types, not the values received). A payload came with a valid signature or
 * secret, so the platform or a proxy sends something the bridge does not understand: worth one line, and the
 * acknowledgement stops the platform from re-delivering it.
 */
export function malformedPayloadReporter(log: Logger, counter: Counter<"channel" | "reason">): ReportMalformed {
  return ({ channel, botId, reason, body, issues }) => {
    counter.inc({ channel, reason });
    // A flood of them costs a counter increment when warnings are not logged.
    if (!log.isLevelEnabled("warn")) return;
    const problems = (issues ?? []).slice(0, MAX_ISSUES).map(describeIssue);
    log.warn(
      { channel, botId, reason, ...(body !== undefined && { shape: payloadShape(body) }), problems },
      `ignored a ${channel} payload the bridge cannot use (${reason}); acknowledged so that it is not sent again`,
    );
  };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((segment) => String(segment).slice(0, MAX_SEGMENT)).join(".");
  return `${path || "(root)"}: ${issue.message}`;
}
