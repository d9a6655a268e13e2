import { once } from "node:events";
import type { Server } from "node:http";
import express from "express";
import { adminRoutes } from "../admin/admin-routes.js";
import { BackgroundPasses } from "../bridge/background-passes.js";
import { Bridge } from "../bridge/bridge.js";
import type { AnswerSteps } from "../bridge/feature.js";
import { malformedPayloadReporter } from "../bridge/malformed-payloads.js";
import { createBridgeMetrics } from "../bridge/metrics.js";
import type { BridgeStore } from "../bridge/store/bridge-store.js";
import { openBridgeStore } from "../bridge/store/open-bridge-store.js";
import { listenOn } from "../common/http-listen.js";
import type { Logger } from "../common/log.js";
import { type Config, ConfigError } from "../config/config.js";
import { ANSWER_STEPS, handoff } from "../features/index.js";
import { MailOutbox, type MailRetryPolicy } from "../mail/mail-outbox.js";
import { createSmtpMailer } from "../mail/smtp-mailer.js";
import type { ChannelStatus, RunningChannel } from "../plugin/channel-plugin.js";
import type { EmbeddedApi } from "../server/embedded-api.js";
import { answers, type BridgeRole, receives, roleRefusal } from "./bridge-role.js";
import { type ChatbotLinks, resolveChatbots } from "./chatbot-links.js";
import { type ChatbotHealth, ChatbotMonitor } from "./chatbot-monitor.js";
import { loadEmbeddedApi } from "./embedded-api-loader.js";
import { finalErrorHandler, unknownRoute } from "./json-fallbacks.js";
import { readinessRoute } from "./readiness.js";

/** The running bridge. */
export interface RunningBridge {
  url: string;
  channels: ChannelStatus[];
  /** The embedded API's demo, when the chatbot API is the embedded one. */
  embedded: EmbeddedApi | undefined;
  /** Each distinct chatbot the bots talk to, and whether it could be reached at start. */
  upstream: ChatbotHealth[];
  /** How often a chatbot that cannot be reached is probed again. */
  upstreamRetryMs: number;
  /** Stops accepting, lets answers finish for up to `graceMs` (then ends them cleanly), closes everything. */
  close(graceMs: number): Promise<void>;
}

/**
 * `chatbridge start`: one express app on PORT with the embedded chatbot API (unless CHATBOT_API_URL), the
 * web chat at `/`, the channels' webhooks, `/healthz`, `/readyz` and `/metrics`. The bridge reaches the
 * chatbot API over HTTP through the client, also when it is the embedded one in this very process.
 * `options.host` is the address to listen on (all by default); `options.mailRetry` changes when the mail outbox
 * retries, `options.chatbotRetryMs` how often an unreachable chatbot is probed again (tests shorten the waits) and
 * `options.alertsClock` is the clock of the alerts' batching and quiet hours (tests move it).
 * A chatbot that cannot be reached does not stop the start: the bridge runs, /readyz says why it is not ready,
 * and the chatbot is probed again until it answers.
 * `options.role` (default `all`) splits the work between processes sharing the store (see {@link BridgeRole}): `web`
 * serves everything above but answers nothing; `worker` attaches every channel's outbound side and answers, serving
 * only /healthz, /readyz, /metrics and the embedded API. Every role attaches the channels (the handoff desk and the
 * admin endpoints send through them) and runs the background passes when it holds their lease.
 * @throws ConfigError when the role cannot work with the store (`web` or `worker` on `memory://`).
 */
export async function startBridge(
  config: Config,
  log: Logger,
  options: {
    host?: string;
    mailRetry?: Partial<MailRetryPolicy>;
    chatbotRetryMs?: number;
    role?: BridgeRole;
    alertsClock?: () => number;
    /** The step list (default src/features/index.ts's): how a test adds a feature from its own folder. */
    steps?: AnswerSteps;
  } = {},
): Promise<RunningBridge> {
  const role = options.role ?? "all";
  const refusal = roleRefusal(role, config.bridge.storeUrl, config.dataDir);
  if (refusal) throw new ConfigError([refusal]);
  const receive = receives(role);
  // One mail transport for the handoff outbox and the embedded server's daily digests.
  const { smtpUrl, from } = config.mail;
  const mailer = smtpUrl && from ? createSmtpMailer({ smtpUrl, from }) : undefined;
  const embedded = config.chatbotApi.url
    ? undefined
    : await (await loadEmbeddedApi()).openEmbeddedApi(config, log, { mailer });
  let store: BridgeStore | undefined;
  let outbox: MailOutbox | undefined;
  let chatbots: ChatbotLinks | undefined;
  let chatbotMonitor: ChatbotMonitor | undefined;
  const running: RunningChannel[] = [];
  const stopChannels = async () => {
    await Promise.all(running.map((channel) => channel.stop()));
  };
  let server: Server | undefined;
  try {
    chatbots = resolveChatbots(config, embedded);
    store = await openBridgeStore({
      url: config.bridge.storeUrl,
      dataDir: config.dataDir,
      namespace: config.bridge.storeNamespace,
    });
    const monitor = new ChatbotMonitor(chatbots.targets, { log, retryMs: options.chatbotRetryMs });
    chatbotMonitor = monitor;
    const metrics = createBridgeMetrics({ processMetrics: true });
    const work = store.work;
    metrics.watchWork(() => work.stats());
    const onMalformed = malformedPayloadReporter(log, metrics.malformedPayloads);
    outbox = mailer ? new MailOutbox({ store, mailer, log, metrics, retry: options.mailRetry }) : undefined;
    const bridge = new Bridge({
      store,
      config: config.bridge,
      chatbots: chatbots.links,
      log,
      metrics,
      outbox,
      now: options.alertsClock,
      steps: options.steps ?? ANSWER_STEPS,
    });
    const handoffs = bridge.api(handoff)?.desk;
    if (!handoffs) throw new Error("the step list has no handoff feature");
    const app = express();
    app.disable("x-powered-by");
    // req.ip (what the web chat's per-address limits count) is the connection's peer unless proxies are named.
    if (config.trustProxy !== undefined) app.set("trust proxy", config.trustProxy);
    if (embedded) app.use("/chat", embedded.router);
    app.get("/healthz", (_req, res) => {
      res.json({ status: "ok" });
    });
    const bridgeStore = store;
    const links = chatbots;
    app.get("/readyz", readinessRoute(bridgeStore, monitor));
    app.get("/metrics", async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
    if (receive) app.use(adminRoutes(handoffs, config.adminToken));
    // The channels add their routes here once started; the JSON fallbacks stay last.
    const channelRoutes = express.Router();
    app.use(channelRoutes, unknownRoute, finalErrorHandler(log));
    const listening = await listenOn(app, config.port, options.host ?? "0.0.0.0");
    server = listening;
    // After listening: the embedded API answers on this very server.
    const upstream = await monitor.start();
    const url = `http://127.0.0.1:${config.port}`;
    const deployment = {
      publicUrl: config.bridge.publicUrl,
      localUrl: url,
      title: embedded?.demo.chatbot.settings.Name ?? "chatbridge",
      sessionIdleMs: config.bridge.sessionIdleMs,
      handoff: { canMail: outbox !== undefined, email: config.bridge.handoff.email },
      maxAudioSeconds: config.bridge.media.maxAudioSeconds,
    };
    for (const { plugin, bots } of config.channels) {
      const off = bots.map((bot) => plugin.off?.(bot, receive));
      if (off.every((status) => status !== undefined)) {
        running.push({ status: off, stop: async () => {} });
        continue;
      }
      const routes = { mount: (router: express.Router) => channelRoutes.use(router) };
      const context = { bots, bridge, routes, store: bridgeStore, log, metrics, onMalformed, receive };
      running.push(await plugin.start({ ...context, deployment }));
    }
    const channels: ChannelStatus[] = running.flatMap((channel) => channel.status);
    // Only now, with every channel attached: answers go out through them.
    if (answers(role)) bridge.startWorking();
    const background = new BackgroundPasses({
      leases: bridgeStore.leases,
      duties: [...bridge.passes, ...(outbox ? [outbox] : [])],
      log,
    });
    background.start();
    return {
      url,
      channels,
      embedded,
      upstream,
      upstreamRetryMs: monitor.retryMs,
      close: async (graceMs) => {
        monitor.stop();
        await stopChannels();
        const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
        listening.closeIdleConnections();
        await background.stop();
        // After the alerts' own subscription closed: other instances' feeds end cleanly and they reconnect elsewhere.
        embedded?.router.endFeeds();
        await bridge.stop(graceMs);
        // Event streams of web chat pages never end by themselves.
        listening.closeAllConnections();
        await closed;
        await outbox?.stop();
        await links.close();
        await bridgeStore.close();
        await embedded?.close();
        mailer?.close();
      },
    };
  } catch (error) {
    chatbotMonitor?.stop();
    await stopChannels();
    if (server?.listening) {
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      await closed;
    }
    await outbox?.stop();
    await chatbots?.close();
    await store?.close();
    await embedded?.close();
    mailer?.close();
    throw error;
  }
}
