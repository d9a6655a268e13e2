import { Router } from "express";
import { strictRoutes } from "../http/methods.js";
import { operation } from "../http/operation.js";
import { addChatbotSchema, chatbotRefSchema, editChatbotSchema, historySchema } from "../schemas/chatbot.js";
import { parseRequest } from "../schemas/parse-request.js";
import type { ChatbotService } from "../services/chatbots.js";
import type { EngineCatalog } from "../services/engine-catalog.js";
import type { ApiStore } from "../store/api-store.js";

/** `/chat/Chatbot/*` operations about chatbots themselves, sessions, models and history. */
export function chatbotRoutes(store: ApiStore, chatbots: ChatbotService, engines: EngineCatalog): Router {
  const router = Router();
  const routes = strictRoutes(router);
  const editSchema = editChatbotSchema(engines);
  routes.post(
    "/Chatbot/Add",
    operation(store, "Add", ["secret"], async ({ body, workspace }) => {
      const input = parseRequest(addChatbotSchema, body);
      return (await chatbots.add(workspace, input)).serialNumber;
    }),
  );
  routes.post(
    "/Chatbot/Remove",
    operation(store, "Remove", ["secret"], async ({ body, workspace }) => {
      await chatbots.remove(workspace, parseRequest(chatbotRefSchema, body).serialNumber);
      return null;
    }),
  );
  routes.post(
    "/Chatbot/Edit",
    operation(store, "Edit", ["secret"], async ({ body, workspace }) => {
      const { serialNumber, ...changes } = parseRequest(editSchema, body);
      await chatbots.edit(workspace, serialNumber, changes);
      return 1;
    }),
  );
  // Extension (not in the spec or the hosted docs): one chatbot's settings, for the bridge and the web chat.
  routes.post(
    "/Chatbot/Get",
    operation(store, "Get", ["secret", "session"], async ({ body, workspace }) => {
      const chatbot = await chatbots.owned(workspace, parseRequest(chatbotRefSchema, body).serialNumber);
      return { serialNumber: chatbot.serialNumber, ...chatbot.settings };
    }),
  );
  routes.post(
    "/Chatbot/GetSession",
    operation(store, "GetSession", ["secret"], async ({ body, workspace, req }) => {
      const { serialNumber } = parseRequest(chatbotRefSchema, body);
      const uri = req.get("origin") ?? req.get("referer") ?? "";
      return { SessionID: await chatbots.openSession(workspace, serialNumber, uri.slice(0, 500)) };
    }),
  );
  routes.get(
    "/Chatbot/ModelList",
    operation(store, "ModelList", ["secret"], async () => engines.models()),
  );
  // The hosted docs' samples send the session key here, their header table the secret key: both are accepted.
  routes.post(
    "/Chatbot/ChatContentHistory",
    operation(store, "ChatContentHistory", ["secret", "session"], async ({ body, workspace }) =>
      chatbots.history(workspace, parseRequest(historySchema, body)),
    ),
  );
  return router;
}
