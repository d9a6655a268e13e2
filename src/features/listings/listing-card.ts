/**
 * A listing as a card under an answer, ready to show: every value already formatted, so each channel only lays it
 * out. The web widget's browser bundle shares this type (`adapters/web/widget/protocol.ts`), so this file imports
 * nothing.
 */
export interface ListingCard {
  mlsNumber: string;
  /** The listing's page (its `Url`), where "Details" leads. */
  url: string;
  /** The first of its images that is an http(s) address; none when it has no such image. */
  image?: string | undefined;
  /** "$450,000", "$2,300 / month" for a rental, or "Price on request". */
  price: string;
  saleType: "for_sale" | "for_rent";
  /** A badge for a listing not simply on the market: PreOnMarket is "Coming soon"; none when Active. */
  status?: "Coming soon" | "Sold" | undefined;
  /** Whole or fractional counts; undefined when the listing leaves them unset. */
  beds?: number | undefined;
  baths?: number | undefined;
  /** The building's area with its unit: "1,850 sq ft", "120 m²"; undefined when unset. */
  area?: string | undefined;
  /** "Address, City, State ZIP", with what is unset left out (may be empty). */
  address: string;
  propertyType: string;
}
