import type { ConversationStart } from "../../src/plugin/channel-plugin.js";
import type { WhatsAppSettings } from "./settings.js";

/**
 * `https://wa.me/<number>?text=<sentence ending with the code>`: WhatsApp opens the chat with the sentence typed in,
 * and the user sends it. The number is asked of the Graph API (`GET /<phone-number-id>?fields=display_phone_number`)
 * with the configured token: the phone number id is not the number, and a second setting could disagree with it.
 */
export async function whatsappConversationLink(
  settings: WhatsAppSettings,
  start: ConversationStart,
): Promise<string | undefined> {
  const { accessToken, phoneNumberId, apiUrl, apiVersion } = settings;
  if (!accessToken || !phoneNumberId) return undefined;
  const url = `${apiUrl}/${apiVersion}/${encodeURIComponent(phoneNumberId)}?fields=display_phone_number`;
  let shown: unknown;
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json().catch(() => ({}))) as {
      display_phone_number?: unknown;
      error?: { message?: string };
    };
    if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
    shown = body.display_phone_number;
  } catch (error) {
    throw new Error(
      `the Graph API did not give the number of WHATSAPP_PHONE_NUMBER_ID ${phoneNumberId} (${(error as Error).message}); check WHATSAPP_ACCESS_TOKEN and the id`,
    );
  }
  // Graph shows it for people ("+1 631-555-5555"); wa.me takes the digits alone, country code first.
  const digits = typeof shown === "string" ? shown.replace(/\D/g, "") : "";
  if (digits === "") throw new Error(`the Graph API gave no display_phone_number for ${phoneNumberId}`);
  return `https://wa.me/${digits}?text=${encodeURIComponent(start.text)}`;
}
