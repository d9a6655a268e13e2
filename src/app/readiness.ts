import type { RequestHandler } from "express";
import type { BridgeStore } from "../bridge/store/bridge-store.js";
import { firstLine } from "../common/startup-error.js";
import { type ChatbotMonitor, describeTarget } from "./chatbot-monitor.js";

/**
 * `GET /readyz`: 200 `{"status":"ready",…}` when the store answers and every chatbot can be reached as configured,
 * else 503 `{"status":"not ready",…}`. `store` and `upstream` are "ok" or the reason in people's words with the fix
 * (`upstream` joins the reasons of every failing chatbot); `queue` names the work queue's backend and what waits in
 * it; `chatbots` lists each chatbot with its bots and state.
 */
export function readinessRoute(store: BridgeStore, monitor: ChatbotMonitor): RequestHandler {
  return async (_req, res) => {
    const [stored, chatbots, work] = await Promise.all([
      store.ping().then(
        () => "ok",
        (error: unknown) => `the store ${store.description} does not answer (${firstLine(error)})`,
      ),
      monitor.check(),
      store.work.stats().catch(() => undefined),
    ]);
    const failing = chatbots.flatMap(({ target, outcome }) =>
      outcome.ok ? [] : [`${describeTarget(target)}: ${outcome.problem}; ${outcome.fix}`],
    );
    const ready = stored === "ok" && failing.length === 0;
    res.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "not ready",
      store: stored,
      // The durable work: which engine keeps it, and what waits in it (from every instance on the store).
      queue: {
        backend: store.kind,
        store: store.description,
        ...(work && {
          waiting: work.items,
          conversations: work.conversations,
          oldestSeconds:
            work.oldestEnqueuedAt === undefined ? 0 : Math.round((Date.now() - work.oldestEnqueuedAt) / 1000),
        }),
      },
      upstream: failing.length === 0 ? "ok" : failing.join(" · "),
      chatbots: chatbots.map(({ target, outcome }) => ({
        url: target.baseUrl,
        chatbot: target.serialNumber,
        bots: target.botIds,
        ...(outcome.ok ? { status: "ok" } : { status: "failing", problem: outcome.problem, fix: outcome.fix }),
      })),
    });
  };
}
