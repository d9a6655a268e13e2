import type { App, Receiver, ReceiverEvent, Logger as SlackLogger } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";

/** What {@link SlackSocketReceiver} needs. */
export interface SlackSocketOptions {
  /** The app-level token (SLACK_APP_TOKEN, xapp-…) with the connections:write scope. */
  appToken: string;
  /** The Web API root: apps.connections.open is called there (Bolt's own Socket Mode receiver cannot be pointed elsewhere). */
  apiUrl: string;
  logger: SlackLogger;
}

/**
 * Socket Mode for workspaces without a public URL: Slack pushes events and button taps over a WebSocket that the
 * app opens (apps.connections.open), reconnecting by itself. An envelope is acknowledged only after Bolt has run
 * its listeners, that is once the bridge has taken the message, so if that fails Slack sends it again, as it
 * retries an unanswered webhook.
 */
export class SlackSocketReceiver implements Receiver {
  readonly #client: SocketModeClient;
  #app: App | undefined;

  constructor(options: SlackSocketOptions) {
    this.#client = new SocketModeClient({
      appToken: options.appToken,
      clientOptions: { slackApiUrl: options.apiUrl },
      logger: options.logger,
    });
    this.#client.on("slack_event", async (envelope: SocketEnvelope) => {
      let response: unknown;
      const event: ReceiverEvent = {
        body: envelope.body,
        retryNum: envelope.retry_num,
        retryReason: envelope.retry_reason,
        ack: async (answer?: unknown) => {
          response = answer;
        },
      };
      try {
        await this.#app?.processEvent(event);
      } catch (error) {
        options.logger.warn(`Slack envelope not taken (Slack sends it again): ${String(error)}`);
        return;
      }
      await envelope.ack(response);
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
}

/** What SocketModeClient hands to `slack_event` listeners. */
interface SocketEnvelope {
  ack(response?: unknown): Promise<void>;
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
}
