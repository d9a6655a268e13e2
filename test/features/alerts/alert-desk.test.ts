import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import { MemorySets } from "../../../src/bridge/store/memory-leases.js";
import { AlertDesk, MAX_SEARCHES } from "../../../src/features/alerts/alert-desk.js";
import { SavedSearches } from "../../../src/features/alerts/saved-searches.js";

function desk(language: "en" | "es" = "en") {
  const sets = new MemorySets(() => undefined);
  const searches = new SavedSearches(new Keyv(), sets);
  const lookups: string[] = [];
  const cities = async (botId: string) => {
    lookups.push(botId);
    return ["Austin", "San Antonio"];
  };
  const alerts = new AlertDesk(searches, { cities, language: async () => language, now: () => 1_000 });
  const origin = { channel: "telegram", botId: "bot", target: { chatId: "7", isGroup: false } };
  let event = 0;
  // Each message is a new event, as the platforms send them.
  const say = async (text: string) => (await alerts.handle("c1", origin, text, `e${++event}`))?.text;
  return { searches, say, alerts, origin, lookups };
}

describe("alert desk", () => {
  it("leaves other messages to the chatbot", async () => {
    const { say } = desk();
    expect(await say("homes in Austin?")).toBeUndefined();
    expect(await say("please stop sending the brochure")).toBeUndefined();
  });

  it("saves a search through the guided flow, re-asking a question it cannot read", async () => {
    const { say, searches } = desk();
    expect(await say("/alert")).toContain("Which city?");
    expect(await say("Austin")).toContain("For sale or for rent?");
    expect(await say("maybe")).toContain('Please answer "for sale", "for rent" or "any". For sale or for rent?');
    expect(await say("For sale")).toContain("bedrooms");
    expect(await say("three")).toContain("Please answer with a number");
    expect(await say("3")).toContain("Highest price?");
    expect(await say("600k")).toBe(
      "Saved alert 1: 3+ bedrooms for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
    );
    expect(await searches.read("c1")).toMatchObject({
      channel: "telegram",
      searches: [{ criteria: { city: "Austin", saleType: "for_sale", minBeds: 3, maxPrice: 600_000 }, savedAt: 1_000 }],
    });
    expect((await searches.read("c1"))?.flow).toBeUndefined();
    expect(await searches.conversations()).toEqual(["c1"]);
    // The flow is over: the next message is the chatbot's again.
    expect(await say("Austin")).toBeUndefined();
  });

  it("takes any for every question, and cancel ends the flow unsaved", async () => {
    const { say, searches } = desk();
    await say("/alert");
    await say("cancel");
    expect((await searches.read("c1"))?.flow).toBeUndefined();
    expect(await searches.conversations()).toEqual([]);
    await say("/alert");
    for (const _question of [1, 2, 3]) await say("any");
    expect(await say("Any")).toContain("Saved alert 1: homes.");
  });

  it("lists the searches numbered, removes one, and stop ends them all", async () => {
    const { say, searches, alerts, origin } = desk();
    expect(await say("/alerts")).toBe("You have no alerts. /alert sets one up.");
    for (const city of ["Austin", "Dallas"]) {
      for (const answer of ["/alert", city, "rent", "any", "$2,500"]) await say(answer);
    }
    const list = await alerts.handle("c1", origin, "/alerts@homes_bot", "list-event");
    expect(list?.text).toBe(
      "Your alerts:\n1. homes for rent in Austin up to $2,500\n2. homes for rent in Dallas up to $2,500\n\n" +
        "Remove one with /alerts remove <number>; /stop ends them all.",
    );
    expect(list?.quickReplies).toEqual(["/alerts remove 1", "/alerts remove 2"]);
    expect(await say("/alerts remove 3")).toBe("There is no alert 3. /alerts lists yours.");
    expect(await say("/alerts remove 1")).toBe("Removed alert 1: homes for rent in Austin up to $2,500.");
    expect((await searches.read("c1"))?.searches).toHaveLength(1);
    expect(await say("Stop")).toBe("All your alerts are stopped. /alert sets up a new one.");
    expect((await searches.read("c1"))?.searches).toEqual([]);
    expect(await searches.conversations()).toEqual([]);
    expect(await say("/stop")).toBe("You have no alerts.");
  });

  it(`keeps at most ${MAX_SEARCHES} searches`, async () => {
    const { say } = desk();
    for (let index = 0; index < MAX_SEARCHES; index++) {
      for (const answer of ["/alert", "any", "any", "any", "any"]) await say(answer);
    }
    expect(await say("/alert")).toContain(`You have ${MAX_SEARCHES} alerts`);
  });

  it("saves the search a sentence names, and confirms it in the sentence's language", async () => {
    const { say, searches, lookups } = desk();
    expect(await say("notify me about new 3-bedroom homes in austin under 600k")).toBe(
      "Saved alert 1: 3+ bedroom houses for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
    );
    expect(await say("Avísame cuando haya departamentos en renta en San Antonio hasta $2,000")).toBe(
      "Alerta 2 guardada: departamentos en alquiler en San Antonio hasta $2,000. /alerts muestra tus alertas, " +
        "/stop las termina.",
    );
    expect((await searches.read("c1"))?.searches.map((search) => search.criteria)).toEqual([
      { minBeds: 3, propertyType: "house", city: "Austin", maxPrice: 600_000, saleType: "for_sale" },
      { propertyType: "apartment", saleType: "for_rent", city: "San Antonio", maxPrice: 2_000 },
    ]);
    expect(await searches.conversations()).toEqual(["c1"]);
    expect(await say("/alerts")).toContain("1. 3+ bedroom houses for sale in Austin up to $600,000\n2. apartments");
    expect(lookups).toEqual(["bot", "bot"]);
  });

  it("leaves questions to the chatbot without looking the cities up", async () => {
    const { say, lookups, searches } = desk();
    expect(await say("do you have 3 bedroom homes in Austin?")).toBeUndefined();
    expect(await say("let me know if you have condos in Austin")).toBeUndefined();
    expect(lookups).toEqual([]);
    expect(await searches.read("c1")).toBeUndefined();
  });

  it("starts the guided flow for a sentence that names no search, keeping the type it names", async () => {
    const { say } = desk();
    expect(await say("Alert me about new condos")).toBe('Let\'s set up an alert for new homes. Which city? (or "any")');
    for (const answer of ["Austin", "rent", "any"]) await say(answer);
    expect(await say("3000")).toBe(
      "Saved alert 1: condos for rent in Austin up to $3,000. /alerts lists your alerts, /stop ends them.",
    );
  });

  it("counts sentences within the searches a conversation may keep", async () => {
    const { say, searches } = desk();
    for (let index = 0; index < MAX_SEARCHES; index++)
      await say(`notify me about new homes in Austin under ${index + 1}00k`);
    expect(await say("notify me about new homes in San Antonio")).toContain(`You have ${MAX_SEARCHES} alerts`);
    expect(await say("avísame de casas en San Antonio")).toContain(`Ya tienes ${MAX_SEARCHES} alertas`);
    expect((await searches.read("c1"))?.searches).toHaveLength(MAX_SEARCHES);
  });

  it("removes one alert once when the same message is handled again after its write (a crash before the ledger)", async () => {
    const { say, searches, alerts, origin } = desk();
    for (const city of ["Austin", "Dallas", "Houston"]) await say(`notify me about new listings for sale in ${city}`);
    // The job handles "/alerts remove 1", the record is written, then the process dies before the job's ledger keeps
    // the reply: the job, resumed, hands the desk the same message again.
    const first = await alerts.handle("c1", origin, "/alerts remove 1", "remove-event");
    const again = await alerts.handle("c1", origin, "/alerts remove 1", "remove-event");
    expect(first?.text).toBe("Removed alert 1: homes for sale in Austin.");
    expect(again).toEqual(first);
    expect((await searches.read("c1"))?.searches.map((search) => search.criteria.city)).toEqual(["Dallas", "Houston"]);
    // A new message saying the same is a new removal.
    expect(await say("/alerts remove 1")).toBe("Removed alert 1: homes for sale in Dallas.");
  });

  it("saves a sentence once when it is handled again, and stops once", async () => {
    const { searches, alerts, origin } = desk();
    const sentence = "notify me about new homes in Austin";
    const saved = await alerts.handle("c1", origin, sentence, "save-event");
    expect(await alerts.handle("c1", origin, sentence, "save-event")).toEqual(saved);
    expect((await searches.read("c1"))?.searches).toHaveLength(1);
    const stopped = await alerts.handle("c1", origin, "/stop", "stop-event");
    expect(stopped?.text).toBe("All your alerts are stopped. /alert sets up a new one.");
    expect(await alerts.handle("c1", origin, "/stop", "stop-event")).toEqual(stopped);
  });

  it("speaks the bot's language in the guided flow and the commands: Spanish answers, buttons and prices", async () => {
    const { say, alerts, origin, searches } = desk("es");
    expect(await say("/alerts")).toBe("No tienes alertas. /alert crea una.");
    const start = await alerts.handle("c1", origin, "/alert", "start-event");
    expect(start).toMatchObject({
      text: 'Creemos una alerta de casas nuevas. ¿En qué ciudad? (o "cualquiera")',
      quickReplies: ["Cualquiera"],
    });
    expect(await say("Austin")).toBe('¿En venta o en alquiler? (o "cualquiera")');
    expect(await say("quizás")).toBe(
      'Responde "en venta", "en alquiler" o "cualquiera", por favor. ¿En venta o en alquiler? (o "cualquiera")',
    );
    expect(await say("En venta")).toContain("¿Cuántas habitaciones como mínimo?");
    expect(await say("Cualquiera")).toContain("¿Precio máximo?");
    expect(await say("600 mil")).toBe(
      "Alerta 1 guardada: viviendas en venta en Austin hasta $600,000. /alerts muestra tus alertas, /stop las termina.",
    );
    expect((await searches.read("c1"))?.searches[0]?.criteria).toEqual({
      city: "Austin",
      saleType: "for_sale",
      maxPrice: 600_000,
    });
    for (const answer of ["/alert", "cualquiera", "en renta", "2", "1.5 millones"]) await say(answer);
    expect((await searches.read("c1"))?.searches[1]?.criteria).toEqual({
      saleType: "for_rent",
      minBeds: 2,
      maxPrice: 1_500_000,
    });
    expect(await say("/alerts")).toBe(
      "Tus alertas:\n1. viviendas en venta en Austin hasta $600,000\n2. viviendas de 2+ habitaciones en alquiler hasta " +
        "$1,500,000\n\nQuita una con /alerts remove <número>; /stop las termina todas.",
    );
    expect(await say("/alerts remove 9")).toBe("No hay alerta 9. /alerts muestra las tuyas.");
    expect(await say("/alerts remove 2")).toBe(
      "Alerta 2 eliminada: viviendas de 2+ habitaciones en alquiler hasta $1,500,000.",
    );
    await say("/alert");
    expect(await say("cancelar")).toBe("Alerta no guardada.");
    expect(await say("/stop")).toBe("Todas tus alertas están detenidas. /alert crea una nueva.");
    expect(await say("/stop")).toBe("No tienes alertas.");
  });

  it("keeps a flow in the language it started in, and answers a sentence in the sentence's", async () => {
    let language: "en" | "es" = "es";
    const sets = new MemorySets(() => undefined);
    const searches = new SavedSearches(new Keyv(), sets);
    const alerts = new AlertDesk(searches, { language: async () => language, now: () => 1_000 });
    const origin = { channel: "telegram", botId: "bot", target: { chatId: "7", isGroup: false } };
    let event = 0;
    const say = async (text: string) => (await alerts.handle("c2", origin, text, `e${++event}`))?.text;
    expect(await say("/alert")).toContain("¿En qué ciudad?");
    // The chatbot's language changed meanwhile: the flow under way goes on as it began.
    language = "en";
    expect(await say("Austin")).toBe('¿En venta o en alquiler? (o "cualquiera")');
    await say("/stop");
    expect(await say("notify me about new homes in Austin under 500k")).toMatch(/^Saved alert 1: /);
  });
});
