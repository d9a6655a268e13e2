import type { Listing } from "../../domain.js";

/** Another city counts as nearby within this distance of the asked city's centre: a commute, not a move. */
const NEARBY_KM = 60;
const EARTH_RADIUS_KM = 6371;

/** Where a city's listings are: the mean position of those that give coordinates. */
export interface CityCentre {
  city: string;
  latitude: number;
  longitude: number;
}

/** The centre of each city whose listings give Latitude and Longitude (cities without any have none). */
export function cityCentres(listings: readonly Listing[]): CityCentre[] {
  const sums = new Map<string, { city: string; latitude: number; longitude: number; count: number }>();
  for (const listing of listings) {
    const city = listing.City?.trim();
    if (!city || listing.Latitude === undefined || listing.Longitude === undefined) continue;
    const sum = sums.get(city.toLowerCase()) ?? { city, latitude: 0, longitude: 0, count: 0 };
    sum.latitude += listing.Latitude;
    sum.longitude += listing.Longitude;
    sum.count++;
    sums.set(city.toLowerCase(), sum);
  }
  return [...sums.values()].map(({ city, latitude, longitude, count }) => ({
    city,
    latitude: latitude / count,
    longitude: longitude / count,
  }));
}

/** Great-circle distance (haversine). */
function kilometresBetween(a: CityCentre, b: CityCentre): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = radians(b.latitude - a.latitude);
  const dLon = radians(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h));
}

/** The other cities within {@link NEARBY_KM} of a city's centre, nearest first; none when the city has no centre. */
export function nearbyCities(city: string, centres: readonly CityCentre[]): { city: string; kilometres: number }[] {
  const origin = centres.find((centre) => centre.city.toLowerCase() === city.toLowerCase());
  if (origin === undefined) return [];
  return centres
    .filter((centre) => centre !== origin)
    .map((centre) => ({ city: centre.city, kilometres: kilometresBetween(origin, centre) }))
    .filter((nearby) => nearby.kilometres <= NEARBY_KM)
    .sort((a, b) => a.kilometres - b.kilometres);
}
