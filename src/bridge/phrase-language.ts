/**
 * The languages the bridge's own words come in (the viewing flow, the listing link's question, the cards' buttons,
 * the handoff's texts): the chatbot's answers are in its AIResponseLanguage, and the bridge's words around them
 * follow it. Like the embedded engine's phrasebooks (which the bridge does not import: it stays a client of the
 * chatbot API), English and Spanish; any other language gets English.
 */
export type PhraseLanguage = "en" | "es";

/**
 * The phrase language of an AIResponseLanguage, a full language name in any language and case ("Spanish",
 * "Español", "spanish (Mexico)") or a code ("es", "es-MX", es_MX as WhatsApp names templates' languages); English for
 * anything else, unset included.
 */
export function phraseLanguage(language: string | undefined): PhraseLanguage {
  const name = (language ?? "").normalize("NFD").replace(/\p{M}/gu, "").trim().toLowerCase();
  return /^(?:spanish|espanol|castellano|es)(?:\b|_)/.test(name) ? "es" : "en";
}
