import { describe, expect, it } from "vitest";
import { alertTemplateParameters, alertText, MAX_ALERT_LINES } from "../../../src/features/alerts/alert-text.js";
import type { PendingAlert } from "../../../src/features/alerts/saved-searches.js";
import { cardFromListing } from "../../../src/features/listings/card-from-listing.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const alert = (mls: string, kind: PendingAlert["kind"]): PendingAlert => ({
  id: mls,
  kind,
  card: cardFromListing(listingItem(mls)),
});

describe("alert text", () => {
  it("names each listing with what happened to it", () => {
    expect(alertText([alert("TX-1", "now-active"), alert("TX-2", "price-drop")])).toBe(
      "2 homes for your alerts:\n" +
        "• Now on the market: $450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://homes.test/listing/tx-1\n" +
        "• Price drop: $450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://homes.test/listing/tx-2\n\n" +
        "/alerts lists your alerts, /stop ends them.",
    );
  });

  it("names a listing without a page by its MLS number", () => {
    const card = cardFromListing(listingItem("TX-7", { Url: "" }));
    expect(alertText([{ id: "TX-7", kind: "new", card }])).toContain(
      "• New: $450,000 · 3 beds · 12 Oak St, Austin, TX 78701 MLS TX-7\n",
    );
  });

  it(`names ${MAX_ALERT_LINES} at most, then how many more`, () => {
    const text = alertText(Array.from({ length: MAX_ALERT_LINES + 3 }, (_, n) => alert(`TX-${n}`, "new")));
    expect(text.split("\n").filter((line) => line.startsWith("• "))).toHaveLength(MAX_ALERT_LINES);
    expect(text).toContain("\n…and 3 more.\n");
  });
});

describe("alert text in Spanish", () => {
  it("names each listing with what happened to it, how many more, and how to stop them, in Spanish", () => {
    const text = alertText(
      Array.from({ length: MAX_ALERT_LINES + 2 }, (_, n) => alert(`TX-${n}`, n === 0 ? "price-drop" : "new")),
      "es",
    );
    expect(text.startsWith(`${MAX_ALERT_LINES + 2} casas para tus alertas:\n`)).toBe(true);
    expect(text).toContain(
      "• Bajó de precio: $450,000 · 3 habitaciones · 12 Oak St, Austin, TX 78701 https://homes.test/listing/tx-0\n",
    );
    expect(text).toContain("• Nueva: $450,000 · 3 habitaciones");
    expect(text.endsWith("\n…y 2 más.\n\n/alerts muestra tus alertas, /stop las termina.")).toBe(true);
    expect(alertText([alert("TX-1", "now-active")], "es")).toMatch(/^Una casa para tus alertas:\n• Ya en el mercado: /);
  });

  it("fills a Spanish template in Spanish", () => {
    expect(alertTemplateParameters([alert("TX-1", "new")], "es")).toEqual([
      "Una casa nueva coincide con tu alerta",
      "$450,000 · 3 habitaciones · 12 Oak St, Austin, TX 78701",
      "https://homes.test/listing/tx-1",
    ]);
    expect(alertTemplateParameters([alert("TX-1", "new"), alert("TX-2", "new")], "es")[0]).toBe(
      "2 casas coinciden con tus alertas",
    );
  });
});

describe("alert template parameters", () => {
  it("say what happened to one listing, then the listing in one line and its page", () => {
    expect(alertTemplateParameters([alert("TX-1", "price-drop")])).toEqual([
      "A home on your alert dropped its price",
      "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701",
      "https://homes.test/listing/tx-1",
    ]);
    expect(alertTemplateParameters([alert("TX-1", "new")])[0]).toBe("A new home matches your alert");
    expect(alertTemplateParameters([alert("TX-1", "now-active")])[0]).toBe("A home on your alert is now on the market");
  });

  it("count several and name the first", () => {
    const [happened, first] = alertTemplateParameters([
      alert("TX-7", "new"),
      alert("TX-8", "new"),
      alert("TX-9", "new"),
    ]);
    expect(happened).toBe("3 homes match your alerts");
    expect(first).toBe("$450,000 · 3 beds · 12 Oak St, Austin, TX 78701");
  });

  it("put a dash for a listing without a page, as a template variable may not be empty", () => {
    const bare: PendingAlert = { ...alert("TX-1", "new") };
    bare.card = { ...bare.card, url: "" };
    expect(alertTemplateParameters([bare])[2]).toBe("-");
  });
});
