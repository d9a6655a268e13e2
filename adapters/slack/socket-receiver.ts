import type { App, Receiver, ReceiverEvent, Logger as SlackLogger } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";
import type { ReportMalformed } from "../../src/plugin/plugin-api.js";
import { type ScreenedSlackPayload, screenEventsPayload, screenInteractivePayload } from "./schema.js";

/** What {@link SlackSocketReceiver} needs. */
export interface SlackSocketOptions {
  /** The app-level token (SLACK_APP_TOKEN, xapp-…) with the connections:write scope. */
  appToken: string;
  /** The Web API root: apps.connections.open is called there (Bolt's own Socket Mode receiver cannot be pointed elsewhere). */
  apiUrl: string;
  /** The bot of this deployment, for the reports. */
  botId: string;
  logger: SlackLogger;
  onMalformed?: ReportMalformed | undefined;
}

/**
 * The envelope type under which an `events_api` envelope without a readable `payload.event` is passed on: the client
 * reads `payload.event.type` of every events_api envelope before emitting it, and would throw (leaving the envelope
 * unacknowledged) on one whose payload or event is missing or null.
 */
const UNREADABLE_EVENTS = "chatbridge_unreadable_events_api";

/**
 * The SocketModeClient, except that an `events_api` envelope whose payload the client itself cannot read is relabelled
 * {@link UNREADABLE_EVENTS} before it reads it: it is then emitted with its ack like any other envelope, and the
 * receiver reports and acknowledges it.
 */
class ScreeningSocketModeClient extends SocketModeClient {
  protected override onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean): Promise<void> {
    return super.onWebSocketMessage(isBinary ? data : relabelUnreadable(data), isBinary);
  }
}

function relabelUnreadable(data: string | ArrayBuffer): string | ArrayBuffer {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return data;
  }
  if (!isRecord(envelope) || envelope.type !== "events_api") return data;
  const payload = envelope.payload;
  if (isRecord(payload) && payload.event !== undefined && payload.event !== null) return data;
  return JSON.stringify({ ...envelope, type: UNREADABLE_EVENTS });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * Socket Mode for workspaces without a public URL: Slack pushes events and button taps over a WebSocket that the
 * app opens (apps.connections.open), reconnecting by itself. Envelopes are sorted as over HTTP (schema.ts): one
 * that does not fit what the bridge reads is reported and acknowledged without reaching Bolt, an ignored kind
 * acknowledged unread. The others are acknowledged only after Bolt has run its listeners, that is once the bridge has
 * taken the message, so if that fails Slack sends it again, as it retries an unanswered webhook.
 */
export class SlackSocketReceiver implements Receiver {
  readonly #client: SocketModeClient;
  readonly #options: SlackSocketOptions;
  #app: App | undefined;

  constructor(options: SlackSocketOptions) {
    this.#options = options;
    this.#client = new ScreeningSocketModeClient({
      appToken: options.appToken,
      clientOptions: { slackApiUrl: options.apiUrl },
      logger: options.logger,
    });
    this.#client.on("slack_event", (envelope: SocketEnvelope) => {
      this.#receive(envelope).catch((error: unknown) =>
        options.logger.error(`Slack envelope could not be handled: ${String(error)}`),
      );
    });
  }

  init(app: App): void {
    this.#app = app;
  }

  /** Opens the connection; resolves once Slack said hello. */
  start(): Promise<unknown> {
    return this.#client.start();
  }

  stop(): Promise<unknown> {
    return this.#client.disconnect();
  }

  async #receive(envelope: SocketEnvelope): Promise<void> {
    const screened = screen(envelope);
    if (screened.kind !== "dispatch") {
      if (screened.kind === "malformed") {
        this.#options.onMalformed?.({
          channel: "slack",
          botId: this.#options.botId,
          reason: screened.reason,
          body: envelope.body,
          issues: screened.issues,
        });
      } else if (screened.kind === "rate_limited") {
        this.#options.logger.warn("Slack is holding back this app's events (app_rate_limited)");
      }
      await envelope.ack().catch(() => undefined);
      return;
    }
    let response: unknown;
    const event: ReceiverEvent = {
      body: screened.body,
      retryNum: envelope.retry_num,
      retryReason: envelope.retry_reason,
      ack: async (answer?: unknown) => {
        response = answer;
      },
    };
    try {
      await this.#app?.processEvent(event);
    } catch (error) {
      this.#options.logger.warn(`Slack envelope not taken (Slack sends it again): ${String(error)}`);
      return;
    }
    // The socket may have closed meanwhile: Slack then sends the envelope again.
    await envelope.ack(response).catch(() => undefined);
  }
}

/** Sorts an envelope by its type: Events API and interactivity payloads are checked, other types acknowledged. */
function screen(envelope: SocketEnvelope): ScreenedSlackPayload {
  switch (envelope.type) {
    case "events_api":
    case UNREADABLE_EVENTS:
      return screenEventsPayload(envelope.body);
    case "interactive":
      return screenInteractivePayload(envelope.body);
    default:
      return { kind: "ignored", reason: `${envelope.type} envelope` };
  }
}

/** What SocketModeClient hands to `slack_event` listeners. */
interface SocketEnvelope {
  ack(response?: unknown): Promise<void>;
  type: string;
  body: unknown;
  retry_num?: number;
  retry_reason?: string;
}
