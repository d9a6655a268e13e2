import type { AnswerEngine } from "../engine/types.js";

/** What the services need from the engine registry: the model list and an engine per model key. */
export interface EngineCatalog {
  /** ModelList's `Data`. */
  models(): { Key: string; Value: string; Status: boolean }[];
  /** The model a new chatbot starts with. */
  readonly defaultModelKey: string;
  /** The engine for an available model key; undefined for unknown or unavailable keys. */
  engineFor(modelKey: string): AnswerEngine | undefined;
}

/** The available models as `Key (Value)`, comma separated, for messages that ask for one. */
export function availableModels(engines: EngineCatalog): string {
  return engines
    .models()
    .filter((model) => model.Status)
    .map((model) => `${model.Key} (${model.Value})`)
    .join(", ");
}
