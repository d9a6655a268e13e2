import type { ListingFields } from "./domain.js";
import { seededRandom } from "./seeded-random.js";

const CITIES = [
  {
    city: "Austin",
    state: "TX",
    zip: "787",
    lat: 30.27,
    lon: -97.74,
    price: 480_000,
    rent: 2_100,
    areas: ["Zilker", "Mueller", "Hyde Park", "East Austin"],
  },
  {
    city: "Denver",
    state: "CO",
    zip: "802",
    lat: 39.74,
    lon: -104.99,
    price: 560_000,
    rent: 2_300,
    areas: ["LoHi", "Capitol Hill", "Washington Park", "RiNo"],
  },
  {
    city: "Miami",
    state: "FL",
    zip: "331",
    lat: 25.76,
    lon: -80.19,
    price: 620_000,
    rent: 2_900,
    areas: ["Brickell", "Coconut Grove", "Wynwood", "Little Havana"],
  },
  {
    city: "Seattle",
    state: "WA",
    zip: "981",
    lat: 47.61,
    lon: -122.33,
    price: 760_000,
    rent: 2_700,
    areas: ["Ballard", "Capitol Hill", "Fremont", "Queen Anne"],
  },
  {
    city: "Chicago",
    state: "IL",
    zip: "606",
    lat: 41.88,
    lon: -87.63,
    price: 390_000,
    rent: 1_900,
    areas: ["Lincoln Park", "Wicker Park", "Lakeview", "Hyde Park"],
  },
];

const TYPES = [
  { type: "Single Family Residential", beds: [3, 5], size: [1600, 3400], lot: [4000, 9000], factor: 1.25 },
  { type: "Condo", beds: [1, 3], size: [650, 1500], lot: [0, 0], factor: 0.75 },
  { type: "Townhouse", beds: [2, 4], size: [1200, 2200], lot: [1200, 2500], factor: 0.95 },
  { type: "Apartment", beds: [0, 3], size: [450, 1300], lot: [0, 0], factor: 0.6 },
];

const STREETS = [
  "Oak",
  "Maple",
  "Cedar",
  "Pine",
  "Elm",
  "Lake",
  "Hill",
  "Park",
  "River",
  "Sunset",
  "Willow",
  "Highland",
];
const SUFFIXES = ["St", "Ave", "Blvd", "Ln", "Dr", "Way"];
const FEATURES = [
  "updated kitchen",
  "hardwood floors",
  "a sunny balcony",
  "an open floor plan",
  "a private backyard",
  "floor-to-ceiling windows",
  "a home office",
  "walk-in closets",
  "a rooftop terrace",
  "energy-efficient appliances",
];

/**
 * About fifty realistic listings across five cities for the demo chatbot: homes for sale and rentals of
 * several property types, with prices, sizes, addresses, coordinates, images and descriptions.
 */
export function demoListings(count = 50): ListingFields[] {
  const next = seededRandom(20_261_122);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const listings: ListingFields[] = [];
  for (let i = 0; i < count; i++) {
    const place = CITIES[i % CITIES.length] as (typeof CITIES)[number];
    const kind = pick(TYPES);
    const forRent = kind.type === "Apartment" || next() < 0.3;
    const bedrooms = between(kind.beds[0] as number, kind.beds[1] as number);
    const size = Math.round(between(kind.size[0] as number, kind.size[1] as number) / 10) * 10;
    const scale = kind.factor * (0.7 + next() * 0.8) * (1 + bedrooms * 0.08);
    const mls = `MLS${String(240_000 + i * 137).padStart(6, "0")}`;
    const street = `${between(100, 9800)} ${pick(STREETS)} ${pick(SUFFIXES)}`;
    const area = pick(place.areas);
    const features = [pick(FEATURES), pick(FEATURES)].filter((f, index, all) => all.indexOf(f) === index);
    const salePrice = Math.round((place.price * scale) / 1000) * 1000;
    const rentPrice = Math.round((place.rent * scale) / 25) * 25;
    const parking = kind.type === "Apartment" ? between(0, 1) : between(1, 3);
    listings.push({
      SaleType: forRent ? "for_rent" : "for_sale",
      Status: i % 17 === 16 ? "Sold" : i % 11 === 10 ? "PreOnMarket" : "Active",
      CurrencySymbol: "$",
      PropertyType: kind.type,
      Bedrooms: bedrooms,
      Bathrooms: Math.max(1, bedrooms - 1) + (next() < 0.5 ? 0.5 : 0),
      Url: `https://homes.example.com/listing/${mls.toLowerCase()}`,
      MLSNumber: mls,
      YearBuilt: between(1925, 2024),
      DaysOnMarket: between(1, 90),
      LotArea:
        (kind.lot[1] as number) > 0 ? Math.round(between(kind.lot[0] as number, kind.lot[1] as number) / 10) * 10 : 0,
      BuildingArea: size,
      AreaUnit: "Square Feet",
      ParkingSpots: parking,
      Images: [1, 2, 3].map((n) => `https://homes.example.com/images/${mls.toLowerCase()}-${n}.jpg`),
      Tours: i % 3 === 0 ? "3D" : i % 3 === 1 ? "OpenHouse" : undefined,
      Description: `${bedrooms === 0 ? "Studio" : `${bedrooms}-bedroom`} ${kind.type.toLowerCase()} in ${area}, ${place.city} with ${features.join(" and ")}.${parking > 0 ? ` ${parking} parking spot${parking > 1 ? "s" : ""}.` : ""}`,
      ExtensionColumn: [{ Key: "Pets", value: next() < 0.6 ? "Allowed" : "Not allowed" }],
      Location: area,
      Address: street,
      City: place.city,
      State: place.state,
      ZIP: `${place.zip}${String(between(1, 99)).padStart(2, "0")}`,
      Latitude: Math.round((place.lat + (next() - 0.5) * 0.2) * 1e5) / 1e5,
      Longitude: Math.round((place.lon + (next() - 0.5) * 0.2) * 1e5) / 1e5,
      SalePrice: forRent ? undefined : salePrice,
      UnitAreaPrice: forRent ? undefined : Math.round(salePrice / size),
      HOAMonth: kind.type === "Condo" || kind.type === "Townhouse" ? between(150, 600) : undefined,
      ZestimatePrice: forRent ? undefined : Math.round((salePrice * (0.95 + next() * 0.1)) / 1000) * 1000,
      RentPrice: forRent ? rentPrice : undefined,
      SpaceType: forRent ? (next() < 0.85 ? "Entire place" : "Room") : undefined,
      DepositFee: forRent ? rentPrice : undefined,
    });
  }
  return listings;
}
