import { GrammyError, HttpError } from "grammy/web";
import { type OperatorProblem, platformCause, statusKind } from "../../src/plugin/channel-errors.js";
import { ChannelError } from "../../src/plugin/plugin-api.js";

/**
 * Maps a failed Bot API call to the bridge's {@link ChannelError} kinds, from the error codes and descriptions
 * Telegram returns (https://core.telegram.org/bots/api#making-requests):
 * - 429 "Too Many Requests: retry after N" → `rate_limited`, waiting `parameters.retry_after` seconds
 *   (https://core.telegram.org/bots/api#responseparameters), for the whole bot: Telegram does not say whether the
 *   chat's limit or the bot's was passed, and sending on into a full bot window only draws more 429s;
 * - 400 "message is not modified" (an edit with the same text and markup) → `not_modified`, a success;
 * - 400 "can't parse entities: …" (HTML Telegram refused) → `format`, so the text goes again as plain text;
 * - 400 "wrong file identifier/HTTP URL specified", "failed to get HTTP URL content", "wrong type of the web page
 *   content", "IMAGE_PROCESS_FAILED", "PHOTO_INVALID_DIMENSIONS" (a photo sent by URL that Telegram could not fetch
 *   or take) → `media`, so the listing card goes again as text;
 * - 401 (token revoked or wrong), 403 (bot blocked by the user, kicked from the group), 404 (no such bot or
 *   method), any other 4xx (chat not found, message to edit not found, …) → `rejected`: retrying cannot help;
 * - 5xx and network failures (`HttpError`) → `transient`.
 */
export function toChannelError(error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  if (error instanceof HttpError) {
    return new ChannelError("transient", `Telegram could not be reached: ${error.message}`, undefined, {
      cause: error,
    });
  }
  if (!(error instanceof GrammyError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new ChannelError("transient", `Telegram call failed: ${message}`, undefined, { cause: error });
  }
  const { error_code: code, description, method } = error;
  const said = `Telegram ${method}: ${code} ${description}`;
  if (code === 429) {
    const seconds = error.parameters?.retry_after;
    return new ChannelError("rate_limited", said, seconds === undefined ? undefined : seconds * 1000, {
      cause: error,
      scope: "bot",
    });
  }
  if (code === 400 && /message is not modified/i.test(description)) {
    return new ChannelError("not_modified", said, undefined, { cause: error });
  }
  if (
    code === 400 &&
    /can't parse entities|can't find end|unsupported start tag|unexpected end tag/i.test(description)
  ) {
    return new ChannelError("format", said, undefined, { cause: error });
  }
  if (
    code === 400 &&
    /wrong file identifier|failed to get HTTP URL content|wrong type of the web page content|IMAGE_PROCESS_FAILED|PHOTO_INVALID_DIMENSIONS|PHOTO_SAVE_FILE_INVALID/i.test(
      description,
    )
  ) {
    return new ChannelError("media", said, undefined, { cause: error });
  }
  return new ChannelError(statusKind(code), said, undefined, { cause: error });
}

/**
 * The problem behind `error` when it is the operator's to fix (a wrong or revoked token, the bot used elsewhere
 * with getUpdates), else undefined: a user blocking the bot or a deleted message is nobody's mistake.
 */
export function operatorProblem(error: unknown): OperatorProblem | undefined {
  const cause = platformCause(error);
  if (!(cause instanceof GrammyError)) return undefined;
  switch (cause.error_code) {
    case 401:
      return {
        key: "401",
        message:
          "Telegram answered 401 Unauthorized: the bot token is wrong or was revoked. Set TELEGRAM_BOT_TOKEN to the token @BotFather shows for this bot.",
      };
    case 404:
      return {
        key: "404",
        message: `Telegram answered 404 Not Found for ${cause.method}: the bot token is malformed or TELEGRAM_API_ROOT points to something that is not a Bot API server.`,
      };
    case 409:
      return {
        key: "409",
        message: `Telegram answered 409 Conflict for ${cause.method} (${cause.description}): another process uses this bot token, or a webhook and polling are mixed. Run one chatbridge per token, and set TELEGRAM_MODE accordingly.`,
      };
    default:
      return undefined;
  }
}
