import { describe, expect, it } from "vitest";
import { phraseLanguage } from "../../src/bridge/phrase-language.js";

describe("phraseLanguage", () => {
  it("reads Spanish from a language's name in any case and accents, or from its code in either spelling", () => {
    for (const spanish of ["Spanish", "español", "ESPAÑOL", "spanish (Mexico)", "Castellano", "es", "es-MX", "es_MX"]) {
      expect(phraseLanguage(spanish)).toBe("es");
    }
  });

  it("gives English for anything else, unset included", () => {
    for (const other of [undefined, "", "English", "en_US", "Portuguese", "pt_BR", "estonian", "est"]) {
      expect(phraseLanguage(other)).toBe("en");
    }
  });
});
