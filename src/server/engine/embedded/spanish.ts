import { isPropertyKind, type PropertyKind } from "../../../real-estate/property-types.js";
import type { ListingFacts, Phrasebook, ReceivedMedia, Relaxation, RelaxedWords, SearchWords } from "./phrasebook.js";
import { joinWords, mlsLabel } from "./phrasebook.js";

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The kinds of property a question can ask for, in the plural. */
const KINDS: Record<PropertyKind, string> = {
  house: "casas",
  "single-family": "casas unifamiliares",
  townhouse: "casas adosadas",
  condo: "condominios",
  apartment: "apartamentos",
  "multi-family": "propiedades multifamiliares",
  "mobile-home": "casas móviles",
  land: "terrenos",
};

const SALE = { for_sale: "en venta", for_rent: "en alquiler" } as const;
const STATUS = { Active: "disponible", PreOnMarket: "próximamente", Sold: "vendida" } as const;
const TOURS = { OpenHouse: "casa abierta", "3D": "recorrido virtual 3D" } as const;
const RELAXATIONS: Record<Relaxation, string> = {
  price: "otro rango de precios",
  bedrooms: "menos habitaciones",
  bathrooms: "menos baños",
  parking: "sin exigir estacionamiento",
  type: "otro tipo de propiedad",
};
const SORTS = {
  price_asc: "de menor a mayor precio",
  price_desc: "de mayor a menor precio",
  newest: "las más recientes primero",
} as const;

function bedrooms({ minBedrooms: min, maxBedrooms: max }: SearchWords): string | undefined {
  if (min !== undefined && max !== undefined) {
    return min === max ? plural(min, "habitación", "habitaciones") : `${min} a ${max} habitaciones`;
  }
  if (min !== undefined) return `${min}+ habitaciones`;
  if (max !== undefined) return `hasta ${plural(max, "habitación", "habitaciones")}`;
  return undefined;
}

/** The asked price range a near miss is outside of: "por $500,000 o menos", "desde $800,000", "entre … y …". */
function missedRange({ minPrice: min, maxPrice: max }: SearchWords): string {
  if (min !== undefined && max !== undefined) return `entre ${min} y ${max}`;
  return max !== undefined ? `por ${max} o menos` : `desde ${min}`;
}

function nearMiss(search: SearchWords, relaxed: RelaxedWords): string {
  switch (relaxed.constraint) {
    case "price": {
      const past = relaxed.over ? "por encima de tu presupuesto" : "por debajo de tu mínimo";
      return `Nada ${missedRange(search)}; lo más cercano cuesta ${relaxed.price}, un ${relaxed.percent}% ${past}:`;
    }
    case "bedrooms": {
      const fewer = search.minBedrooms !== undefined && relaxed.bedrooms < search.minBedrooms;
      const count = plural(relaxed.bedrooms, "habitación", "habitaciones");
      return `Nada con ${bedrooms(search)}; con una habitación ${fewer ? "menos" : "más"} (${count}):`;
    }
    case "city":
      return `Nada en ${search.city}; lo más cercano está en ${relaxed.city}, a ${Math.max(1, Math.round(relaxed.kilometres))} km:`;
  }
}

function price({ minPrice: min, maxPrice: max }: SearchWords): string | undefined {
  if (min !== undefined && max !== undefined) return `entre ${min} y ${max}`;
  if (max !== undefined) return `hasta ${max}`;
  if (min !== undefined) return `desde ${min}`;
  return undefined;
}

/** "12 segundos", "1 minuto", "2 minutos y 5 segundos". */
function lasting(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const parts = minutes === 0 ? [] : [plural(minutes, "minuto", "minutos")];
  if (rest > 0 || minutes === 0) parts.push(plural(rest, "segundo", "segundos"));
  return joinWords(parts, "y");
}

const sized = (noun: string) => (seconds: number | undefined) =>
  seconds === undefined ? noun : `${noun} de ${lasting(seconds)}`;

function received(media: ReceivedMedia): string[] {
  const photos = media.photos === 0 ? [] : [media.photos === 1 ? "una foto" : `${media.photos} fotos`];
  return [...photos, ...media.recordings.map(sized("un mensaje de voz")), ...media.videos.map(sized("un video"))];
}

function senses(media: ReceivedMedia): string[] {
  const senses: string[] = [];
  if (media.photos > 0) senses.push("ver fotos");
  if (media.recordings.length > 0) senses.push("escuchar grabaciones");
  if (media.videos.length > 0) senses.push("ver videos");
  return senses;
}

const whereTo = (cities: string[]) => (cities.length > 0 ? ` Tengo propiedades en ${joinWords(cities, "y")}.` : "");

/** Spanish answers. Numbers use the comma-grouped style of Spanish in the Americas, where MLS listings are. */
export const spanish: Phrasebook = {
  locale: "es-US",
  perMonth: "/mes",
  areaUnits: { "Square Feet": "pies²", "Square Meters": "m²" },
  welcome: (name) =>
    `¡Hola! Soy el asistente${name ? ` de ${name}` : ""}. ¿Cómo puedo ayudarte a encontrar tu próximo hogar?`,
  thanks: () => "¡De nada! Avísame si quieres ver más propiedades.",
  offTopic: (name, city) =>
    `Soy el asistente inmobiliario${name ? ` de ${name}` : ""}, así que solo puedo ayudarte con nuestras ` +
    `propiedades. Prueba, por ejemplo, "casas de 3 habitaciones${city ? ` en ${city}` : ""}" o pregúntame por un número MLS.`,
  alertsHowTo: () =>
    "Desde aquí no puedo enviar alertas. En un chat conmigo en Telegram, WhatsApp, Slack o el chat de este sitio, " +
    "envía esta misma frase (o /alert) para guardar la búsqueda: las propiedades nuevas que coincidan te llegarán " +
    "allí, /alerts muestra tus alertas y /stop las termina.",
  mediaReceived: (media, captioned) => {
    const next = captioned
      ? "así que respondo a tu mensaje escrito."
      : `así que escríbeme qué buscas, por ejemplo "apartamentos de 2 habitaciones en alquiler".`;
    // A negated list joins with "ni": "no puedo ver fotos ni escuchar grabaciones".
    return `Recibí ${joinWords(received(media), "y")}. No puedo ${joinWords(senses(media), "ni")} sin conexión, ${next}`;
  },
  noListings: () => "Ahora mismo no tengo propiedades para mostrar. Vuelve a consultar pronto.",
  intro: ({ count, shown, search, sort }) => {
    const order = sort ? `, ${SORTS[sort]}` : "";
    if (count === 1) return `Encontré 1 resultado para ${search}:`;
    if (shown < count) return `Encontré ${count} resultados para ${search}. Estos son los primeros ${shown}${order}:`;
    return `Encontré ${count} resultados para ${search}${order}:`;
  },
  more: (count, capped) =>
    `…y ${capped ? "al menos " : ""}${count} más. Dime un presupuesto, un número de habitaciones o una ciudad para afinar la búsqueda.`,
  noMatch: (search, relaxations, cities) => {
    const hint =
      relaxations.length > 0
        ? ` Prueba con ${joinWords(
            relaxations.map((r) => RELAXATIONS[r]),
            "o",
          )}.`
        : "";
    return `Lo siento, no encontré ${search}.${hint}${whereTo(cities)}`;
  },
  nearMiss,
  sold: (facts) => `La propiedad ${mlsLabel(facts.mlsNumber)} ya se vendió, así que no está disponible.`,
  similar: (count, city) => {
    const where = city ? ` en ${city}` : "";
    return count === 0
      ? `Ahora mismo no tengo propiedades parecidas disponibles${where}.`
      : `Propiedades parecidas disponibles${where}:`;
  },
  mlsNotFound: (mls, cities) => `Lo siento, no encontré ninguna propiedad con el número MLS ${mls}.${whereTo(cities)}`,
  describe: (search) => {
    const type = search.propertyType;
    const what = [type === undefined ? "viviendas" : isPropertyKind(type) ? KINDS[type] : `propiedades tipo ${type}`];
    if (search.saleType) what.push(SALE[search.saleType]);
    if (search.city) what.push(`en ${search.city}`);
    const features = [bedrooms(search)];
    if (search.minBathrooms !== undefined) features.push(`${search.minBathrooms}+ baños`);
    if (search.minParkingSpots === 1) features.push("estacionamiento");
    else if (search.minParkingSpots !== undefined) features.push(`${search.minParkingSpots}+ estacionamientos`);
    const present = features.filter((feature) => feature !== undefined);
    if (present.length > 0) what.push(`con ${joinWords(present, "y")}`);
    const range = price(search);
    if (range) what.push(range);
    return what.join(" ");
  },
  summary: (facts) =>
    [
      `${facts.propertyType} ${SALE[facts.saleType]}`,
      facts.status === "Active" ? undefined : STATUS[facts.status],
      facts.price ?? "precio a consultar",
      plural(facts.bedrooms, "hab.", "hab."),
      `${facts.bathroomsText} ${facts.bathrooms === 1 ? "baño" : "baños"}`,
      facts.area,
    ]
      .filter((part) => part !== undefined)
      .join(" · "),
  details: (facts: ListingFacts) => {
    const lines = [
      `${facts.propertyType} ${SALE[facts.saleType]}${facts.city ? ` en ${facts.city}` : ""} (${mlsLabel(facts.mlsNumber)})`,
    ];
    lines.push(`${facts.saleType === "for_rent" ? "Alquiler" : "Precio"}: ${facts.price ?? "a consultar"}`);
    if (facts.deposit) lines.push(`Depósito: ${facts.deposit}`);
    lines.push(`Estado: ${STATUS[facts.status]}`);
    lines.push(`Habitaciones: ${facts.bedrooms} · Baños: ${facts.bathroomsText}`);
    if (facts.spaceType)
      lines.push(`Espacio: ${facts.spaceType === "Room" ? "una habitación" : "la propiedad completa"}`);
    if (facts.area) lines.push(`Superficie: ${facts.area}${facts.lot ? ` · Terreno: ${facts.lot}` : ""}`);
    if (facts.yearBuilt) lines.push(`Año de construcción: ${facts.yearBuilt}`);
    lines.push(`Estacionamiento: ${facts.parkingSpots > 0 ? plural(facts.parkingSpots, "plaza", "plazas") : "no"}`);
    if (facts.hoa) lines.push(`Cuota HOA: ${facts.hoa}`);
    lines.push(`Días en el mercado: ${facts.daysOnMarket}`);
    if (facts.address) lines.push(`Dirección: ${facts.address}`);
    if (facts.tours) lines.push(`Visitas: ${TOURS[facts.tours]}`);
    if (facts.description) lines.push("", facts.description);
    if (facts.url) lines.push("", facts.url);
    return lines;
  },
};
