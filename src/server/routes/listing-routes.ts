import { Router } from "express";
import { strictRoutes } from "../http/methods.js";
import { operation } from "../http/operation.js";
import {
  createListingSchema,
  deleteListingsSchema,
  listListingsSchema,
  updateListingSchema,
} from "../schemas/listing.js";
import { parseRequest } from "../schemas/parse-request.js";
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
  routes.post(
    "/Chatbot/RealEstateCreate",
    operation(store, "RealEstateCreate", ["secret", "session"], async ({ body, workspace }) => {
      const { SerialNumber, ...fields } = parseRequest(createListingSchema, body);
      return listings.create(await chatbots.owned(workspace, SerialNumber), fields);
    }),
  );
  routes.post(
    "/Chatbot/RealEstateUpdate",
    operation(store, "RealEstateUpdate", ["secret", "session"], async ({ body, workspace }) => {
      const { SerialNumber, Key, KeyType, ...fields } = parseRequest(updateListingSchema, body);
      return listings.update(await chatbots.owned(workspace, SerialNumber), Key, KeyType, fields);
    }),
  );
  routes.post(
    "/Chatbot/RealEstateList",
    operation(store, "RealEstateList", ["session"], async ({ body, workspace }) => {
      const query = parseRequest(listListingsSchema, body);
      return listings.list(await chatbots.owned(workspace, query.SerialNumber), query);
    }),
  );
  routes.post(
    "/Chatbot/RealEstateDelete",
    operation(store, "RealEstateDelete", ["secret", "session"], async ({ body, workspace }) => {
      const { SerialNumber, Keys, KeyType } = parseRequest(deleteListingsSchema, body);
      return { SuccessCount: await listings.delete(await chatbots.owned(workspace, SerialNumber), Keys, KeyType) };
    }),
  );
  return router;
}
