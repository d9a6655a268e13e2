import { z } from "zod";
import { serialNumber } from "./requests/fields.js";

/**
 * The self-hosted server's change feed of a chatbot's listings (`?SerialNumber=…`), an extension: Server-Sent Events,
 * one per committed RealEstateCreate, Update or Delete. The hosted platform has no such route (it answers 404), so a
 * client polls RealEstateList there. An event is a notification that something changed, never the listing itself:
 * RealEstateList stays the source of truth, and nothing missed while disconnected is replayed.
 */
export const LISTING_CHANGES_PATH = "/chat/Chatbot/RealEstateChanges";

/** The feed's name in errors and logs, like an operation's. */
export const LISTING_CHANGES_NAME = "RealEstateChanges";

/** The SSE event name of a change (`event: listing`); comments (`: heartbeat`) keep an idle connection open. */
export const LISTING_CHANGE_EVENT = "listing";

/** The feed's query: the chatbot whose listings are followed. */
export const listingChangesQuerySchema = z.object({ SerialNumber: serialNumber });

/** What happened to a listing. */
export const LISTING_CHANGE_KINDS = ["create", "update", "delete"] as const;

/** One event's `data`: the chatbot, the listing's MLSNumber (after an update, its new one) and what happened. */
export const listingChangeSchema = z.object({
  SerialNumber: z.string(),
  MLSNumber: z.string(),
  Kind: z.enum(LISTING_CHANGE_KINDS),
});

/** A change of a chatbot's listing, as the feed announces it. */
export type ListingChange = z.output<typeof listingChangeSchema>;
