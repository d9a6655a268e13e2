/**
 * The keys ModelList offers and Edit's `Model` takes. Fixed numbers rather than model names, so that a chatbot's
 * choice survives the operator switching LLM_MODEL from one provider model to another.
 */

/** The embedded listings assistant: always available. */
export const EMBEDDED_MODEL_KEY = "1";
/** The OpenAI-compatible provider configured by LLM_BASE_URL and LLM_MODEL. */
export const LLM_MODEL_KEY = "2";
