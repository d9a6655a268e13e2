import { normalize } from "../../../real-estate/vocabulary.js";
import { english } from "./english.js";
import type { Phrasebook } from "./phrasebook.js";
import { spanish } from "./spanish.js";

/**
 * The phrasebook for a chatbot's AIResponseLanguage, a full language name in any language and case ("Spanish",
 * "Español", "spanish (Mexico)") or a code ("es", "es-MX"). Languages without a phrasebook get English.
 */
export function phrasebookFor(language: string): Phrasebook {
  const name = normalize(language);
  if (/^(?:spanish|espanol|castellano|es)\b/.test(name)) return spanish;
  return english;
}
