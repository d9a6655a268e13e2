import { demoListings } from "./demo-listings.js";
import type { Chatbot, Workspace } from "./domain.js";
import type { ChatbotService } from "./services/chatbots.js";
import type { ApiStore } from "./store/api-store.js";
import { newWorkspaceKeys } from "./workspace-keys.js";

/** The demo's name in the store: found by it on later starts. */
export const DEMO_WORKSPACE = "demo";

/** Values the operator configured for the demo (CHATBOT_API_KEY, CHATBOT_SESSION_KEY, CHATBOT_SERIAL_NUMBER). */
export interface DemoPreset {
  apiKey?: string | undefined;
  sessionKey?: string | undefined;
  serialNumber?: string | undefined;
}

const DEMO_SETTINGS = {
  Name: "Harbor & Pine Realty",
  WelcomeMessage:
    "Hi! I'm the Harbor & Pine Realty assistant. Ask me about homes for sale or rent in Austin, Denver, Miami, Seattle or Chicago.",
  SuggestedMessage: "3 bedroom homes for sale in Austin\nRentals with parking in Denver\nWhat's the cheapest condo?",
  TalkToHumanResponseMessage: "Thanks! One of our agents will e-mail you shortly.",
  AIResponseLanguage: "English",
  // The widget then shows both of what a visitor can send besides text: photos and push-to-talk.
  EnablePushToTalk: true,
};

/**
 * Makes sure the demo exists and returns it: on the first start with an empty store it creates a workspace,
 * a chatbot with friendly settings and about fifty listings. Configured keys and serial number are used as
 * they are (a workspace with that secret key is the demo); unset ones are generated once and found again on
 * later starts. `created` tells whether anything was created now.
 */
export async function ensureDemo(
  store: ApiStore,
  chatbots: ChatbotService,
  preset: DemoPreset,
): Promise<{ workspace: Workspace; chatbot: Chatbot; created: boolean }> {
  let created = false;
  let workspace = preset.apiKey
    ? await store.workspaces.bySecretKey(preset.apiKey)
    : await store.workspaces.byName(DEMO_WORKSPACE);
  if (!workspace) {
    const keys = newWorkspaceKeys();
    workspace = await store.workspaces.create({
      name: preset.apiKey ? `${DEMO_WORKSPACE}-${Date.now()}` : DEMO_WORKSPACE,
      secretKey: preset.apiKey ?? keys.secretKey,
      sessionKey: preset.sessionKey ?? keys.sessionKey,
    });
    created = true;
  }
  let chatbot = preset.serialNumber
    ? await store.chatbots.bySerialNumber(preset.serialNumber)
    : (await store.chatbots.listByWorkspace(workspace.id))[0];
  if (chatbot && chatbot.workspaceId !== workspace.id) {
    throw new Error(
      `CHATBOT_SERIAL_NUMBER ${preset.serialNumber} belongs to another workspace than CHATBOT_API_KEY; set matching values or unset both`,
    );
  }
  if (!chatbot) {
    chatbot = await chatbots.add(workspace, {
      timeZone: "America/Chicago",
      type: 0,
      serialNumber: preset.serialNumber,
      settings: DEMO_SETTINGS,
    });
    for (const listing of demoListings()) await store.listings.create(chatbot.id, listing);
    created = true;
  }
  return { workspace, chatbot, created };
}
