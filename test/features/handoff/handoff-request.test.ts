import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/config.js";
import { handoffIntent } from "../../../src/features/handoff/handoff-request.js";

const keywords = loadConfig({}, { envFile: undefined }).bridge.handoff.keywords;

describe("handoffIntent", () => {
  it("reads /human and /bot, also addressed to a bot in a group", () => {
    expect(handoffIntent("/human", keywords)).toBe("human");
    expect(handoffIntent("/human@homes_bot please", keywords)).toBe("human");
    expect(handoffIntent("/BOT", keywords)).toBe("bot");
    expect(handoffIntent("/humane", keywords)).toBeUndefined();
  });

  it("gives the conversation back on a message that is only a bot phrase, never on one inside a sentence", () => {
    for (const text of ["Back to the bot!", "volver al bot", "bot", "Zurück zum Bot"]) {
      expect(handoffIntent(text, keywords), text).toBe("bot");
    }
    expect(handoffIntent("is this a bot or a person?", keywords)).toBeUndefined();
  });

  it("finds the default phrases in several languages, whatever the case and punctuation", () => {
    for (const text of [
      "Can I talk to a HUMAN, please?",
      "quiero hablar con una persona",
      "Je voudrais parler à un humain.",
      "agent",
      "An agent please!",
    ]) {
      expect(handoffIntent(text, keywords), text).toBe("human");
    }
  });

  it("takes a one-word phrase only in a short message, and phrases only as whole words", () => {
    expect(handoffIntent("I am an estate agent myself and want a 3 bedroom house", keywords)).toBeUndefined();
    expect(handoffIntent("agents", keywords)).toBeUndefined();
    expect(handoffIntent("3 bedroom houses in Austin", keywords)).toBeUndefined();
    expect(handoffIntent("", keywords)).toBeUndefined();
  });

  it("uses the configured phrases only, besides the offered button's text", () => {
    expect(handoffIntent("operator", ["operator"])).toBe("human");
    expect(handoffIntent("hablar con un agente", ["operator"])).toBeUndefined();
    expect(handoffIntent("Talk to a human", ["operator"])).toBe("human");
    expect(handoffIntent("Talk to a human", [])).toBe("human");
    expect(handoffIntent("Hablar con una persona", [])).toBe("human");
  });
});
