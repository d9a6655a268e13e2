/**
 * The listing card's types as the web widget's browser bundle reads them (adapters/web/widget/): types only, so the
 * bundle imports no Node code, where plugin-api.ts re-exports values too.
 */
export type { CardAction } from "../features/listings/card-action.js";
export type { ListingCard } from "../features/listings/listing-card.js";
