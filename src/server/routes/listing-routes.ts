import { Router } from "express";
import { OPERATIONS } from "../../api/operations.js";
import { strictRoutes } from "../http/methods.js";
import { serveOperation } from "../http/operation.js";
import type { ChatbotService } from "../services/chatbots.js";
import type { ListingService } from "../services/listings.js";
import type { ApiStore } from "../store/api-store.js";

/**
 * `/chat/Chatbot/RealEstate*`. Create, Update and Delete accept the secret or the session key (the spec's
 * header table says secret, its samples send the session key); List accepts the session key, as documented.
 */
export function listingRoutes(store: ApiStore, chatbots: ChatbotService, listings: ListingService): Router {
  const router = Router();
  const routes = strictRoutes(router);
  serveOperation(routes, store, OPERATIONS.createListing, async ({ input, workspace }) => {
    const { SerialNumber, ...fields } = input;
    return listings.create(await chatbots.owned(workspace, SerialNumber), fields);
  });
  serveOperation(routes, store, OPERATIONS.updateListing, async ({ input, workspace }) => {
    const { SerialNumber, Key, KeyType, ...fields } = input;
    return listings.update(await chatbots.owned(workspace, SerialNumber), Key, KeyType, fields);
  });
  serveOperation(routes, store, OPERATIONS.listListings, async ({ input, workspace }) => {
    return listings.list(await chatbots.owned(workspace, input.SerialNumber), input);
  });
  serveOperation(routes, store, OPERATIONS.deleteListings, async ({ input, workspace }) => {
    const { SerialNumber, Keys, KeyType } = input;
    return { SuccessCount: await listings.delete(await chatbots.owned(workspace, SerialNumber), Keys, KeyType) };
  });
  return router;
}
