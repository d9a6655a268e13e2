import { WebClient } from "@slack/web-api";
import { OperatorProblems, statusKind } from "../../src/plugin/channel-errors.js";
import {
  CARD_LABELS,
  type CardSurface,
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  type DownloadOptions,
  type Logger,
  type MediaRef,
  type NativeStream,
  type OutgoingText,
  type ReplyTarget,
  readCapped,
  type SentMessage,
  TokenBucket,
} from "../../src/plugin/plugin-api.js";
import { BUTTON_TEXT_LIMIT, SECTION_TEXT_LIMIT, truncate } from "./block-kit.js";
import { cardMessage, cardPostError } from "./cards.js";
import { operatorProblem, toChannelError } from "./errors.js";
import { markdownToMrkdwn, measureMrkdwn } from "./format.js";
import { escapeEntities } from "./format-inline.js";

/**
 * Slack's limits as the pacer keeps them (https://docs.slack.dev/apis/web-api/rate-limits). Slack limits each
 * method per workspace by tier, and chat.postMessage to "one message per second per channel":
 * - `perChat`/`perGroup`: a call every 1.1 s per conversation, no burst: chat.postMessage's "one message per
 *   second per channel" with room for network jitter (posts, edits and the status share it, so an answer's edits
 *   also come about a second apart, which is what Slack suggests for edited messages anyway);
 * - `perOperation.send`: posts (answers, cards, alerts) 9 a second across the workspace, under chat.postMessage's
 *   workspace-wide limit, which Slack does not put a figure on (540 a minute); smooth, with a burst of 3, because
 *   Slack warns that messages posted in bursts may be neither stored nor displayed;
 * - `perOperation`, as Slack counts its tiers, calls in any minute, bursts included: chat.update (Tier 3) 50,
 *   chat.startStream and chat.stopStream (Tier 2) 20, chat.appendStream (Tier 4) 100. Kept as even rates (0.3 a
 *   second for Tier 2) they let two of ten answers asked at once stream, the others waiting for their whole answer
 *   in one post; as counts, about nine stream at once. A streamed or edited answer pays for its stop or final edit
 *   when it starts, so under load answers that could not be finished in time go out as one post instead. An answer
 *   in a thread that native streams have no budget left for opens as a post edited as it grows (chat.update's
 *   budget is another).
 * - `openingShare`: an edit that only grows an answer already on screen leaves 30 of chat.update's 50 a minute to
 *   the answers still to open (each answer opened by a post needs one edit to be finished, paid when it opens):
 *   under load a first text for one more thread goes before one more edit of a thread that reads already.
 * - `perBot`: Slack limits methods one by one, with no limit on an app's calls together; this cap on all of them
 *   (40 a second, burst 20) is only a guard against a runaway, above what the methods' own budgets let through
 *   together (about 12 a second sustained, more in the bursts their windows allow). Counting every call against the
 *   posts' 9 a second, as before, made the edits and streams of a hundred answers wait behind the posts (the last
 *   answers showed nothing for 14 s); a guard of 20 a second still held the posts to about 7 a second while a
 *   hundred answers streamed their appends.
 * - `apart`: the "is thinking…" status (assistant.threads.setStatus) is no message: Slack limits it as a method of
 *   its own ("special", far above the per-channel post), so it spends 9 a second of its own budget and never the
 *   conversation's one post a second, which the first text needs.
 */
export const SLACK_LIMITS: ChannelLimits = {
  perChat: { perSecond: 0.9, burst: 1 },
  perGroup: { perSecond: 0.9, burst: 1 },
  perBot: { perSecond: 40, burst: 20 },
  perOperation: {
    send: { perSecond: 9, burst: 3 },
    edit: { max: 50, windowMs: 60_000 },
    streamStart: { max: 20, windowMs: 60_000 },
    streamStop: { max: 20, windowMs: 60_000 },
    streamAppend: { max: 100, windowMs: 60_000 },
    typing: { perSecond: 9, burst: 3 },
  },
  openingShare: { edit: 30 },
  apart: ["typing"],
  minUpdateIntervalMs: { private: 1_000, group: 1_000 },
};

/**
 * Longest text one message takes: chat.postMessage truncates `text` past 40,000 characters, but Block Kit and
 * `markdown_text` stop at 12,000 and long messages are hard to read, so answers continue in a new message here.
 */
export const SLACK_MAX_TEXT_LENGTH = 12_000;

/** What a {@link SlackChannel} needs. */
export interface SlackChannelOptions {
  /** The Bot User OAuth Token (SLACK_BOT_TOKEN, xoxb-…). */
  token: string;
  /** The Web API root (SLACK_API_URL), https://slack.com/api/ by default. */
  apiUrl?: string | undefined;
  botId?: string | undefined;
  log?: Logger | undefined;
}

/**
 * Slack as a bridge channel, over the Web API client. In threads answers stream natively ({@link stream}); elsewhere
 * the first text is posted in the conversation and edited as the answer grows (chat.postMessage + chat.update), as
 * mrkdwn rendered from the chatbot's markdown. "Typing" is the assistant thread status ("is thinking…"), which
 * Slack shows only in DM threads with the app. Suggested questions are the thread's suggested prompts there, and
 * buttons elsewhere.
 */
export class SlackChannel implements Channel {
  readonly name = "slack";
  readonly botId: string;
  readonly limits: ChannelLimits = SLACK_LIMITS;
  /** The Web API client; the setup code uses it for auth.test. */
  readonly client: WebClient;
  readonly #token: string;
  readonly #apiHost: string;
  readonly #log: Logger | undefined;
  readonly #problems: OperatorProblems;
  /** assistant.threads.setSuggestedPrompts is a courtesy outside the pacer, kept under its Tier 3 here. */
  readonly #promptBudget = new TokenBucket({ perSecond: 0.75, burst: 3 }, performance.now());

  /**
   * Native streaming (chat.startStream / appendStream / stopStream) with `markdown_text`, which Slack renders as
   * markdown itself while the text grows. Needs a thread, and in channels the person and workspace it answers.
   */
  readonly stream: NativeStream = {
    start: async (target, text) => {
      const result = await this.#call("chat.startStream", target, () =>
        this.client.chat.startStream({
          channel: target.chatId,
          thread_ts: target.threadId as string,
          markdown_text: streamText(text),
          ...(target.isGroup && {
            recipient_user_id: target.recipient?.userId,
            recipient_team_id: target.recipient?.teamId,
          }),
        }),
      );
      if (!result.ts) throw new ChannelError("transient", "Slack chat.startStream answered without a ts");
      return { id: result.ts };
    },
    append: async (target, message, text) => {
      await this.#call("chat.appendStream", target, () =>
        this.client.chat.appendStream({ channel: target.chatId, ts: message.id, markdown_text: streamText(text) }),
      );
    },
    stop: async (target, message, text) => {
      const rest = streamText(text);
      await this.#call("chat.stopStream", target, () =>
        this.client.chat.stopStream({
          channel: target.chatId,
          ts: message.id,
          ...(rest !== "" && { markdown_text: rest }),
        }),
      );
      await this.#suggest(target, text.quickReplies);
    },
  };

  /**
   * Listing cards, one message each in the answer's thread, as Block Kit ({@link cardMessage}). One message per card,
   * paced like any post, so that a photo Slack cannot download (chat.postMessage answers `invalid_blocks`) costs only
   * its own card, which the bridge then sends again without it.
   */
  readonly cards: CardSurface = {
    perMessage: 1,
    send: async (target, cards, actions, labels = CARD_LABELS) => {
      const [card] = cards;
      if (!card) throw new ChannelError("rejected", "no listing card to send");
      return this.#post(target, cardMessage(card, actions, labels)).catch((error: unknown) => {
        throw cardPostError(card, error);
      });
    },
  };

  constructor(options: SlackChannelOptions) {
    this.botId = options.botId ?? "default";
    this.#log = options.log;
    this.#problems = new OperatorProblems(options.log, { channel: this.name, botId: this.botId });
    this.#token = options.token;
    const apiUrl = options.apiUrl ?? "https://slack.com/api/";
    this.#apiHost = new URL(apiUrl).host;
    // The pacer owns waiting: rate-limited calls are rejected at once, and nothing is retried behind its back.
    this.client = new WebClient(options.token, {
      slackApiUrl: apiUrl,
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: 30_000,
    });
  }

  /** Streams natively in threads (assistant threads in DMs; in channels when the recipient is known). */
  capabilities(target: ReplyTarget): ChannelCapabilities {
    const recipientKnown = target.recipient?.userId !== undefined && target.recipient.teamId !== undefined;
    return {
      canEdit: true,
      nativeDraft: false,
      nativeStream: target.threadId !== undefined && (!target.isGroup || recipientKnown),
      maxTextLength: SLACK_MAX_TEXT_LENGTH,
      // Suggested prompts in assistant threads, buttons elsewhere.
      quickReplies: true,
    };
  }

  /** Slack's length of chatbot markdown once rendered as mrkdwn, for splitting long answers. */
  measure(markdown: string): number {
    return measureMrkdwn(markdown);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const sent = await this.#post(target, { text: render(text), blocks: buttons(target, text) });
    await this.#suggest(target, text.quickReplies);
    return sent;
  }

  async edit(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void> {
    await this.#call("chat.update", target, () =>
      this.client.chat.update({
        channel: target.chatId,
        ts: message.id,
        text: render(text),
        blocks: buttons(target, text),
      }),
    );
  }

  draft(): Promise<void> {
    return Promise.reject(new ChannelError("rejected", "Slack has no native drafts"));
  }

  /**
   * The "is thinking…" status of an assistant thread (assistant.threads.setStatus; it clears itself when the
   * answer is posted or after two minutes). Elsewhere Slack shows bots no typing indicator, so nothing is sent.
   */
  async typing(target: ReplyTarget): Promise<void> {
    if (target.isGroup || target.threadId === undefined) return;
    const threadTs = target.threadId;
    await this.#call("assistant.threads.setStatus", target, () =>
      this.client.assistant.threads.setStatus({
        channel_id: target.chatId,
        thread_ts: threadTs,
        status: "is thinking…",
      }),
    );
  }

  /**
   * Fetches a file the user shared from its private URL with the bot token (scope files:read). The token is only
   * ever sent to Slack's own host: a file shared from elsewhere may point anywhere. Without the scope Slack
   * answers a login page instead of the bytes, which is refused rather than handed on.
   */
  async download(media: MediaRef, { signal, maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const url = new URL(media.platformId);
    if (url.host !== this.#apiHost && url.host !== "files.slack.com") {
      throw new ChannelError("rejected", `Slack file at ${url.host} is not on Slack; the token is not sent there`);
    }
    let response: Response;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${this.#token}` }, signal });
    } catch (error) {
      throw new ChannelError(
        "transient",
        "Slack file download failed: the file server could not be reached",
        undefined,
        {
          cause: error instanceof Error ? new Error(error.name) : undefined,
        },
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ChannelError(statusKind(response.status), `Slack file download: HTTP ${response.status}`);
    }
    if ((response.headers.get("content-type") ?? "").startsWith("text/html")) {
      await response.body?.cancel();
      this.#problems.report({
        key: "files:read",
        message: "Slack answered a login page for a shared file: add the files:read scope to the app and reinstall it.",
      });
      throw new ChannelError("rejected", "Slack file download: a login page instead of the file (files:read missing)");
    }
    return readCapped(response, maxBytes, "the Slack file");
  }

  /**
   * Suggested questions become the assistant thread's suggested prompts (at most four; a tap sends the question).
   * They are a courtesy: a refusal is logged, the message it came with stands.
   */
  async #suggest(target: ReplyTarget, quickReplies: string[] | undefined): Promise<void> {
    const questions = (quickReplies ?? [])
      .map((question) => question.trim())
      .filter(Boolean)
      .slice(0, 4);
    if (questions.length === 0 || !isAssistantThread(target)) return;
    // Tier 3 like chat.update: when many threads open at once, the later ones go without suggestions.
    const now = performance.now();
    if (this.#promptBudget.available(now) < 1) return;
    this.#promptBudget.take(now);
    const prompts = questions.map((question) => ({ title: truncate(question, BUTTON_TEXT_LIMIT), message: question }));
    await this.#call("assistant.threads.setSuggestedPrompts", target, () =>
      this.client.assistant.threads.setSuggestedPrompts({
        channel_id: target.chatId,
        thread_ts: target.threadId as string,
        prompts: prompts as [(typeof prompts)[number], ...(typeof prompts)[number][]],
      }),
    ).catch((error: unknown) => {
      if (error instanceof ChannelError && error.kind === "rate_limited") {
        this.#promptBudget.pause(performance.now() + (error.retryAfterMs ?? 1_000));
      } else {
        this.#log?.warn(
          { channel: this.name, botId: this.botId, reason: String(error) },
          "Slack suggested prompts not set",
        );
      }
    });
  }

  /**
   * Posts a message in the target's conversation (its thread, if any), without previews of its links: in a growing
   * answer they would flicker in and out, and under a card they would show the listing's page again.
   */
  async #post(
    target: ReplyTarget,
    message: { text: string; blocks?: { type: string }[] | undefined },
  ): Promise<SentMessage> {
    const result = await this.#call("chat.postMessage", target, () =>
      this.client.chat.postMessage({
        channel: target.chatId,
        thread_ts: target.threadId,
        ...message,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (!result.ts) throw new ChannelError("transient", "Slack chat.postMessage answered without a ts");
    return { id: result.ts };
  }

  async #call<T>(method: string, target: ReplyTarget, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      const mapped = toChannelError(error, method);
      this.#problems.report(operatorProblem(mapped, { channel: target.chatId }));
      throw mapped;
    }
  }
}

/**
 * Suggested questions as buttons under the text (outside assistant threads, which show them as suggested prompts);
 * a tap comes back on the interactivity endpoint and is asked as the person's question. With blocks, `text`
 * is what notifications show.
 */
function buttons(target: ReplyTarget, text: OutgoingText) {
  const questions = (text.quickReplies ?? [])
    .map((question) => question.trim())
    .filter(Boolean)
    .slice(0, 5);
  const rendered = render(text);
  if (questions.length === 0 || isAssistantThread(target) || rendered.length > SECTION_TEXT_LIMIT) return undefined;
  return [
    { type: "section", text: { type: "mrkdwn", text: rendered } },
    {
      type: "actions",
      elements: questions.map((question, n) => ({
        type: "button",
        action_id: `chatbridge_quick_reply_${n}`,
        text: { type: "plain_text", text: truncate(question, BUTTON_TEXT_LIMIT), emoji: true },
        value: question.slice(0, 2000),
      })),
    },
  ];
}

/** A DM thread: where Slack shows assistant statuses and suggested prompts. */
function isAssistantThread(target: ReplyTarget): boolean {
  return !target.isGroup && target.threadId !== undefined;
}

/**
 * Text for `markdown_text`, which Slack renders as markdown: the chatbot's markdown as it is, but never a mass
 * mention or a mention syntax (a zero-width space after `<` and a zero-width joiner after a mass-mention `@`).
 */
function streamText(text: OutgoingText): string {
  return text.text
    .replace(/<(?=[!@#])/g, "<\u200b")
    .replace(/(?<![A-Za-z0-9])@(?=(?:here|channel|everyone)(?![A-Za-z0-9]))/gi, "@\u200d");
}

/** Markdown as mrkdwn; plain text only escaped, so nothing in it is read as markup or a mention. */
function render(text: OutgoingText): string {
  if (text.format === "markdown") return markdownToMrkdwn(text.text);
  return escapeEntities(text.text);
}
