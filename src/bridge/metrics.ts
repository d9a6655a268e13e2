import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from "prom-client";
import { isPartLoaded, LAZY_PARTS } from "../common/lazy-parts.js";
import type { WorkStats } from "./store/work-queue.js";

/**
 * The bridge's Prometheus metrics, served at /metrics. A feature or a channel registers its own on `registry`
 * ({@link registered}): the core names none of them.
 */
export interface BridgeMetrics {
  registry: Registry;
  messagesIn: Counter<"channel">;
  messagesOut: Counter<"channel">;
  /** From the user's message to the final text on the platform. */
  answerSeconds: Histogram<"channel">;
  /** From the user's message to the first visible text. */
  firstTextSeconds: Histogram<"channel">;
  /** 429s the platforms answered despite the pacer. */
  platformRateLimited: Counter<"channel">;
  /**
   * How long finals and updates waited for the platform's budgets (per chat, bot and operation, shared by every
   * process on Redis) before they went out; `priority` final or update.
   */
  budgetWaitSeconds: Histogram<"channel" | "priority">;
  upstreamErrors: Counter<"kind">;
  /** Errors the platforms answered, by their own code (WhatsApp 131047: outside the 24-hour window). */
  platformErrors: Counter<"channel" | "code">;
  /** Status updates the platforms reported for sent messages (WhatsApp: sent, delivered, read, failed). */
  platformStatuses: Counter<"channel" | "status">;
  /**
   * Authentic platform payloads the bridge could not use and acknowledged without answering, by channel and reason
   * (unreadable, too_large, schema, unknown_type): see src/bridge/malformed-payloads.ts.
   */
  malformedPayloads: Counter<"channel" | "reason">;
  activeStreams: Gauge;
  /** Files users sent, by kind and what became of them (forwarded, unsupported, too_large, too_long, failed). */
  mediaItems: Counter<"channel" | "kind" | "outcome">;
  /** Mail send attempts by outcome: sent, retry (failed for now, tried again later), failed (given up). */
  mails: Counter<"outcome">;
  /** Mails in the outbox waiting for another attempt. */
  mailsPending: Gauge;
  /**
   * Where the work gauges read from at each scrape (the store's `work.stats()`); set once the store is open. Every
   * process shows the whole store's queue, whoever recorded the work.
   */
  watchWork(stats: () => Promise<WorkStats>): void;
  /** Work items recorded and not yet answered (`WorkQueue.stats().items`). */
  workItems: Gauge;
  /** Age of the oldest work item not yet answered, 0 when there is none. */
  workOldestSeconds: Gauge;
  /** Conversations taken with `resumed`: the previous holder ended without releasing them (crash or stall). */
  workResumed: Counter;
  /** Conversation leases lost while held (expired or taken over): the holder stopped writing at once. */
  leaseLost: Counter;
  /**
   * Questions a holder found under way in the ledger and continued, by kind: `answered` (delivered from the
   * recorded answer, the chatbot not asked again), `asked_again` (the answer was lost with its holder: the chatbot
   * was asked a second time), `diverged` (that second answer differed from what was already shown).
   */
  ledgerResumes: Counter<"kind">;
  /** 1 for each part loaded on first use (src/common/lazy-parts.ts) that this process has loaded, 0 for the others. */
  modulesLoaded: Gauge<"module">;
}

/** From no wait (the common case) to the waits of a thousand answers at once behind Telegram's 30 a second. */
const BUDGET_WAIT_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80];

const LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60];

/**
 * A fresh registry with the bridge's metrics and, with `processMetrics`, Node's default ones (memory, CPU, event
 * loop delay, GC), which the running server exposes; tests leave them out, as each set starts a loop monitor.
 */
export function createBridgeMetrics(options: { processMetrics?: boolean } = {}): BridgeMetrics {
  const registry = new Registry();
  let workStats: (() => Promise<WorkStats>) | undefined;
  /** One read of the store per scrape, shared by the two gauges that show it. */
  let reading: Promise<WorkStats | undefined> | undefined;
  const readWork = () => {
    reading ??= (workStats?.() ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const common = { registers: [registry] };
  return {
    registry,
    messagesIn: new Counter({
      name: "chatbridge_messages_in_total",
      help: "User messages received",
      labelNames: ["channel"],
      ...common,
    }),
    messagesOut: new Counter({
      name: "chatbridge_messages_out_total",
      help: "Messages sent to users",
      labelNames: ["channel"],
      ...common,
    }),
    answerSeconds: new Histogram({
      name: "chatbridge_answer_seconds",
      help: "Time from a user's message to the final answer text on the platform",
      labelNames: ["channel"],
      buckets: LATENCY_BUCKETS,
      ...common,
    }),
    firstTextSeconds: new Histogram({
      name: "chatbridge_first_text_seconds",
      help: "Time from a user's message to the first visible answer text",
      labelNames: ["channel"],
      buckets: LATENCY_BUCKETS,
      ...common,
    }),
    platformRateLimited: new Counter({
      name: "chatbridge_platform_rate_limited_total",
      help: "Platform answers of 429 Too Many Requests",
      labelNames: ["channel"],
      ...common,
    }),
    budgetWaitSeconds: new Histogram({
      name: "chatbridge_budget_wait_seconds",
      help: "Time finals and updates waited for the platform's rate-limit budgets before they were sent, by channel and priority",
      labelNames: ["channel", "priority"],
      buckets: BUDGET_WAIT_BUCKETS,
      ...common,
    }),
    upstreamErrors: new Counter({
      name: "chatbridge_upstream_errors_total",
      help: "Chatbot API failures",
      labelNames: ["kind"],
      ...common,
    }),
    platformErrors: new Counter({
      name: "chatbridge_platform_errors_total",
      help: "Errors the platforms answered, by channel and the platform's error code",
      labelNames: ["channel", "code"],
      ...common,
    }),
    platformStatuses: new Counter({
      name: "chatbridge_platform_statuses_total",
      help: "Delivery status updates of sent messages, by channel and status",
      labelNames: ["channel", "status"],
      ...common,
    }),
    malformedPayloads: new Counter({
      name: "chatbridge_malformed_payloads_total",
      help: "Authentic platform payloads acknowledged but not used because they do not fit what the bridge reads, by channel and reason",
      labelNames: ["channel", "reason"],
      ...common,
    }),
    activeStreams: new Gauge({ name: "chatbridge_active_streams", help: "Answers being streamed now", ...common }),
    mediaItems: new Counter({
      name: "chatbridge_media_items_total",
      help: "Files users sent (photos, recordings, videos, stickers…), by kind and outcome",
      labelNames: ["channel", "kind", "outcome"],
      ...common,
    }),
    mails: new Counter({
      name: "chatbridge_mails_total",
      help: "Mail send attempts by outcome: sent, retry (failed for now) or failed (given up)",
      labelNames: ["outcome"],
      ...common,
    }),
    mailsPending: new Gauge({
      name: "chatbridge_mails_pending",
      help: "Mails in the outbox waiting for another attempt",
      ...common,
    }),
    watchWork: (stats) => {
      workStats = stats;
    },
    workItems: new Gauge({
      name: "chatbridge_work_items",
      help: "Work items (platform events) recorded and not yet answered",
      async collect() {
        const stats = await readWork();
        if (stats) this.set(stats.items);
      },
      ...common,
    }),
    workOldestSeconds: new Gauge({
      name: "chatbridge_work_oldest_seconds",
      help: "Age of the oldest work item not yet answered, 0 when there is none",
      async collect() {
        const stats = await readWork();
        if (stats) this.set(stats.oldestEnqueuedAt === undefined ? 0 : (Date.now() - stats.oldestEnqueuedAt) / 1000);
      },
      ...common,
    }),
    workResumed: new Counter({
      name: "chatbridge_work_resumed_total",
      help: "Conversations taken over after their previous holder ended without releasing them (crash or stall)",
      ...common,
    }),
    leaseLost: new Counter({
      name: "chatbridge_lease_lost_total",
      help: "Conversation leases lost while held (expired or taken over by another process)",
      ...common,
    }),
    ledgerResumes: new Counter({
      name: "chatbridge_ledger_resumes_total",
      help: "Questions found under way in the answer ledger and continued, by kind (answered, asked_again, diverged)",
      labelNames: ["kind"],
      ...common,
    }),
    modulesLoaded: new Gauge({
      name: "chatbridge_module_loaded",
      help: "1 when a part loaded on first use is loaded in this process (embedded-api, telegram, slack, whatsapp, media-codecs), 0 when not",
      labelNames: ["module"],
      collect() {
        for (const part of LAZY_PARTS) this.set({ module: part }, isPartLoaded(part) ? 1 : 0);
      },
      ...common,
    }),
  };
}

/**
 * The metric `name` of `registry`, made by `make` (given the registers to put it in) the first time: a feature
 * opened by several bridges on one registry (tests, a process's two roles) shares one metric.
 */
export function registered<T extends Metric>(registry: Registry, name: string, make: (registers: Registry[]) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make([registry]);
}
