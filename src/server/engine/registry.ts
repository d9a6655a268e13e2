import type { ModelInfo } from "../../api/types.js";
import { EmbeddedEngine } from "./embedded/embedded-engine.js";
import { EMBEDDED_MODEL_KEY, LLM_MODEL_KEY } from "./model-keys.js";
import { OpenAiProvider } from "./openai-provider.js";
import type { AnswerEngine, EngineModel } from "./types.js";

/**
 * The LLM settings of the configuration (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL); unset = no LLM. With
 * LLM_TRANSCRIBE_MODEL the provider also transcribes voice messages.
 */
export interface LlmSettings {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  transcribeModel?: string | undefined;
}

/** The server's answer engines, by the model keys of ModelList. */
export interface Engines {
  /** ModelList's `Data`: every model, `Status` false for one that is not configured. */
  models(): ModelInfo[];
  /**
   * The model of new chatbots: always the embedded engine ("1"), also when an LLM is configured, so that a fresh
   * chatbot answers deterministically and costs nothing; an operator opts a chatbot into the LLM with Edit's
   * `Model` = "2".
   */
  readonly defaultModelKey: string;
  /** The engine of an available model key; undefined for unknown keys and for the LLM when it is not configured. */
  engineFor(modelKey: string): AnswerEngine | undefined;
}

/** Shown for key "2" while LLM_BASE_URL or LLM_MODEL is unset. */
const UNCONFIGURED_LLM = "OpenAI-compatible LLM (set LLM_BASE_URL and LLM_MODEL)";

/**
 * Builds the engines: the embedded listings assistant (key "1", always available) and, when both LLM_BASE_URL
 * and LLM_MODEL are set, the OpenAI-compatible provider (key "2"), transcribing voice messages with
 * LLM_TRANSCRIBE_MODEL when that is set too.
 */
export function createEngines(llm: LlmSettings): Engines {
  const engines: AnswerEngine[] = [new EmbeddedEngine()];
  const { baseUrl, apiKey, model, transcribeModel } = llm;
  if (baseUrl && model) engines.push(new OpenAiProvider({ baseUrl, apiKey, model, transcribeModel }));
  const models: EngineModel[] = engines.flatMap((engine) => engine.models);
  if (!models.some((model) => model.key === LLM_MODEL_KEY)) {
    models.push({ key: LLM_MODEL_KEY, name: llm.model || UNCONFIGURED_LLM, available: false });
  }
  const byKey = new Map(
    engines.flatMap((engine) => engine.models.filter((model) => model.available).map((model) => [model.key, engine])),
  );
  return {
    models: () => models.map((model) => ({ Key: model.key, Value: model.name, Status: model.available })),
    defaultModelKey: EMBEDDED_MODEL_KEY,
    engineFor: (modelKey) => byKey.get(modelKey),
  };
}
