import { createParser, type EventSourceMessage } from "eventsource-parser";
import { LISTING_CHANGE_EVENT, type ListingChange, listingChangeSchema } from "../../api/listing-changes.js";
import { ChatbotApiError } from "../errors.js";
import { transportError } from "../transport-errors.js";

/**
 * Decodes the listing change feed (Server-Sent Events) into its changes, ending when the server ends the stream.
 * Comments (the heartbeats) and events of other names are skipped, so the server may add some; a `listing` event
 * whose data is not a change is a `malformed` error, and a failing source what {@link transportError} makes of it.
 */
export async function* decodeListingChanges(
  source: AsyncIterable<Uint8Array | string>,
  options: { operation: string; signal?: AbortSignal | undefined },
): AsyncGenerator<ListingChange> {
  const { operation, signal } = options;
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of source) {
      parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
      for (const message of messages.splice(0)) {
        if (message.event !== LISTING_CHANGE_EVENT) continue;
        yield readChange(operation, message.data);
      }
    }
  } catch (error) {
    throw transportError(operation, error, { signal });
  }
}

function readChange(operation: string, data: string): ListingChange {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  const change = listingChangeSchema.safeParse(parsed);
  if (change.success) return change.data;
  throw new ChatbotApiError({
    operation,
    kind: "malformed",
    message: `a ${LISTING_CHANGE_EVENT} event is not a change: ${data.slice(0, 120)}`,
  });
}
