import { Router } from "express";
import { OPERATIONS } from "../../api/operations.js";
import { strictRoutes } from "../http/methods.js";
import { serveOperation } from "../http/operation.js";
import type { ChatbotService } from "../services/chatbots.js";
import type { LeadService } from "../services/leads.js";
import type { ApiStore } from "../store/api-store.js";

/**
 * `/chat/Chatbot/LeadList`, which accepts either key like ChatContentHistory, and `/chat/Chatbot/LeadAdd`, an
 * extension of the self-hosted server (the hosted platform records leads itself) through which the bridge
 * records handoff requests; it takes the secret key, like the other writes.
 *
 * The hosted docs show LeadList's body but its answer only up to `[{ "Type": "Lead", "Name": …, "E…`. Where
 * they stop, this server chose: items `{Type, Name, Email?, Phone?, Content, SessionID, CreateTime}` oldest
 * first; `Type` is `Handoff` or `Contact` (the hosted "Lead" and appointments do not exist here); Email and
 * Phone are left out when unknown; SessionID is null for a handoff without a session; CreateTime is ISO 8601
 * UTC; dates filter whole UTC days with endTime included, as ChatContentHistory's do.
 */
export function leadRoutes(store: ApiStore, chatbots: ChatbotService, leads: LeadService): Router {
  const router = Router();
  const routes = strictRoutes(router);
  serveOperation(routes, store, OPERATIONS.listLeads, async ({ input, workspace }) => {
    const { serialNumber, ...query } = input;
    return leads.list(await chatbots.owned(workspace, serialNumber), query);
  });
  serveOperation(routes, store, OPERATIONS.addLead, async ({ input, workspace }) => {
    const { serialNumber, ...lead } = input;
    return leads.add(await chatbots.owned(workspace, serialNumber), lead);
  });
  return router;
}
