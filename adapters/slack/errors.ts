import { ErrorCode } from "@slack/web-api";
import { type OperatorProblem, platformCause, statusKind } from "../../src/plugin/channel-errors.js";
import { ChannelError } from "../../src/plugin/plugin-api.js";

/** Errors about the formatting, so the same text goes again as plain text. */
const FORMAT = new Set(["invalid_blocks", "invalid_blocks_format", "invalid_markdown", "markdown_text_too_long"]);

/** Errors on Slack's side, worth another try. */
const TRANSIENT = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited"]);

/**
 * Maps a failed Web API call to the bridge's {@link ChannelError} kinds. Slack answers most failures with HTTP 200
 * and `ok: false` (the client throws them as platform errors), rate limits with HTTP 429 and `Retry-After`
 * (https://docs.slack.dev/apis/web-api/rate-limits): the client is told to reject those instead of retrying, so
 * the pacer waits them out with everything else it paces. Slack limits a method across the whole workspace, so
 * a 429 pauses the bot, not only the chat.
 */
export function toChannelError(error: unknown, method: string): ChannelError {
  if (error instanceof ChannelError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  const said = (detail: string) => `Slack ${method}: ${detail}`;
  switch (code) {
    case ErrorCode.RateLimitedError: {
      const seconds = (error as { retryAfter?: number }).retryAfter ?? 1;
      return new ChannelError("rate_limited", said(`rate limited for ${seconds} s`), seconds * 1000, {
        cause: error,
        scope: "bot",
      });
    }
    case ErrorCode.PlatformError: {
      const slackError = String((error as { data?: { error?: unknown } }).data?.error ?? "unknown_error");
      // Everything else (not_in_channel, channel_not_found, invalid_auth, message_not_found, msg_too_long…)
      // cannot succeed by trying again.
      const kind = FORMAT.has(slackError) ? "format" : TRANSIENT.has(slackError) ? "transient" : "rejected";
      return new ChannelError(kind, said(slackError), undefined, { cause: error });
    }
    case ErrorCode.HTTPError: {
      const status = (error as { statusCode?: number }).statusCode ?? 0;
      return new ChannelError(statusKind(status), said(`HTTP ${status}`), undefined, { cause: error });
    }
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new ChannelError("transient", said(`could not be reached: ${message}`), undefined, { cause: error });
    }
  }
}

/** The Slack error code behind a channel error, if it was one. */
export function slackErrorOf(error: unknown): string | undefined {
  const cause = platformCause(error);
  if ((cause as { code?: unknown } | undefined)?.code !== ErrorCode.PlatformError) return undefined;
  return String((cause as { data?: { error?: unknown } }).data?.error ?? "");
}

/**
 * The problem behind `error` when the operator must act (a wrong token, a missing scope, the bot not invited),
 * else undefined.
 */
export function operatorProblem(
  error: unknown,
  where: { channel?: string | undefined } = {},
): OperatorProblem | undefined {
  const slackError = slackErrorOf(error);
  switch (slackError) {
    case "invalid_auth":
    case "not_authed":
    case "token_revoked":
    case "token_expired":
    case "account_inactive":
      return {
        key: "auth",
        message: `Slack answered ${slackError}: the bot token is wrong or was revoked. Set SLACK_BOT_TOKEN to the app's Bot User OAuth Token (xoxb-…).`,
      };
    case "missing_scope": {
      const cause = platformCause(error) as { data?: { needed?: string } };
      const needed = cause.data?.needed ? ` (${cause.data.needed})` : "";
      return {
        key: `scope:${needed}`,
        message: `Slack answered missing_scope${needed}: add the scopes of slack-manifest.yml to the app and reinstall it.`,
      };
    }
    case "not_in_channel":
      return {
        key: `not_in_channel:${where.channel}`,
        message: `Slack answered not_in_channel for ${where.channel}: invite the bot to the channel (/invite @the-bot).`,
      };
    case "channel_not_found":
      return {
        key: `channel_not_found:${where.channel}`,
        message: `Slack answered channel_not_found for ${where.channel}: the bot cannot see that channel; invite it, or check that the token belongs to this workspace.`,
      };
    default:
      return undefined;
  }
}
