import { Router } from "express";
import { OPERATIONS } from "../../api/operations.js";
import { strictRoutes } from "../http/methods.js";
import { serveOperation } from "../http/operation.js";
import { editChatbotSchemaFor } from "../schemas/edit-chatbot.js";
import type { ChatbotService } from "../services/chatbots.js";
import type { EngineCatalog } from "../services/engine-catalog.js";
import type { ApiStore } from "../store/api-store.js";

/** `/chat/Chatbot/*` operations about chatbots themselves, sessions, models and history. */
export function chatbotRoutes(store: ApiStore, chatbots: ChatbotService, engines: EngineCatalog): Router {
  const router = Router();
  const routes = strictRoutes(router);
  serveOperation(routes, store, OPERATIONS.addChatbot, async ({ input, workspace }) => {
    return (await chatbots.add(workspace, input)).serialNumber;
  });
  serveOperation(routes, store, OPERATIONS.removeChatbot, async ({ input, workspace }) => {
    await chatbots.remove(workspace, input.serialNumber);
    return null;
  });
  // Edit's Model is checked against the models this server has, listed with the other problems.
  const edit = { ...OPERATIONS.editChatbot, request: editChatbotSchemaFor(engines) };
  serveOperation(routes, store, edit, async ({ input, workspace }) => {
    const { serialNumber, ...changes } = input;
    await chatbots.edit(workspace, serialNumber, changes);
    return 1;
  });
  // Extension (not in the spec or the hosted docs): one chatbot's settings, for the bridge and the web chat.
  serveOperation(routes, store, OPERATIONS.getChatbot, async ({ input, workspace }) => {
    const chatbot = await chatbots.owned(workspace, input.serialNumber);
    return { serialNumber: chatbot.serialNumber, ...chatbot.settings };
  });
  serveOperation(routes, store, OPERATIONS.getSession, async ({ input, workspace, req }) => {
    const uri = req.get("origin") ?? req.get("referer") ?? "";
    return { SessionID: await chatbots.openSession(workspace, input.serialNumber, uri.slice(0, 500)) };
  });
  serveOperation(routes, store, OPERATIONS.listModels, async () => engines.models());
  serveOperation(routes, store, OPERATIONS.chatHistory, async ({ input, workspace }) =>
    chatbots.history(workspace, input),
  );
  return router;
}
