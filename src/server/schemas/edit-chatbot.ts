import { editChatbotSchema, settingsShape } from "../../api/requests/chatbot.js";
import { availableModels, type EngineCatalog } from "../services/engine-catalog.js";

/**
 * The API's Edit schema for the models this server has: `Model` must be an available key of ModelList, a
 * problem listed with the others. Built per engine catalog because the models are configuration.
 */
export function editChatbotSchemaFor(engines: EngineCatalog) {
  return editChatbotSchema.extend({
    Model: settingsShape.Model.refine((key) => engines.engineFor(key) !== undefined, {
      error: () => `must be the Key of a model ModelList shows as available: ${availableModels(engines)}`,
    }).optional(),
  });
}
