import { Counter, type Registry } from "prom-client";
import { registered } from "../../bridge/metrics.js";

/** The listings' metrics, in the bridge's registry. */
export interface ListingMetrics {
  /**
   * Conversations opened from a listing's link or QR code (`chatbridge links`), by channel; per listing they are
   * counted as ListingVisit leads (the daily leads digest), as MLS numbers would make the label unbounded.
   */
  listingLinkVisits: Counter<"channel">;
}

/** The listings' metrics of `registry`, registered on first use. */
export function listingMetrics(registry: Registry): ListingMetrics {
  return {
    listingLinkVisits: registered(
      registry,
      "chatbridge_listing_link_visits_total",
      (registers) =>
        new Counter({
          name: "chatbridge_listing_link_visits_total",
          help: "Conversations opened from a listing's link or QR code, by channel",
          labelNames: ["channel"],
          registers,
        }),
    ),
  };
}
