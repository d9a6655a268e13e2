import type { Request, Response } from "express";
import type { ChatbotSettings, ChatbotView } from "../../../src/plugin/plugin-api.js";
import { originAllowed, originRefusal } from "../origins.js";
import type { PrivacyConsents } from "../privacy-consents.js";
import type { VisitorIdentity } from "../visitor-identity.js";
import { privacyPolicy } from "../widget-settings.js";

/**
 * How fresh the settings the widget gets are: the bridge reads them again after this long and browsers keep them no
 * longer, so a chatbot's `Edit` shows on the visitors' next page load within about this time, without a restart.
 */
export const WIDGET_SETTINGS_MAX_AGE_S = 5;

/**
 * What a `/webchat/` request must be let in by: a chatbot with a web chat here and a page its settings admit, a
 * visitor token this deployment issued, the visitor's consent to the privacy policy in force. A check that refuses
 * answers the request itself (404 or 403, saying why and what to do), so an endpoint that is refused only stops.
 */
export class WebChatAdmission {
  readonly #chatbot: ChatbotView | undefined;
  readonly #identity: VisitorIdentity;
  readonly #consents: PrivacyConsents;

  /** `chatbot` is the web chat's bot's, undefined where the bridge has none. */
  constructor(chatbot: ChatbotView | undefined, identity: VisitorIdentity, consents: PrivacyConsents) {
    this.#chatbot = chatbot;
    this.#identity = identity;
    this.#consents = consents;
  }

  /** The chatbot's settings, no older than {@link WIDGET_SETTINGS_MAX_AGE_S}, so that an `Edit` shows soon. */
  async settings(): Promise<ChatbotSettings | undefined> {
    return this.#chatbot?.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000);
  }

  /**
   * The privacy policy in force as the bridge read it (none: nothing to accept): what a visitor accepts is that one,
   * not what the page says.
   */
  async policy() {
    return privacyPolicy(await this.settings());
  }

  /**
   * The chatbot a request names (none: the web chat's), or a 404 said (then undefined); then the origin check, which
   * refuses with 403 and the fix a page whose origin the chatbot's `VerifyDomain`/`Domains` do not admit.
   */
  async chatbot(req: Request, res: Response, named: string | undefined): Promise<ChatbotView | undefined> {
    const chatbot = this.#chatbot;
    if (!chatbot || (named !== undefined && named !== chatbot.serialNumber)) {
      res.status(404).json({ error: `no chatbot ${JSON.stringify(named ?? "")} has a web chat on this bridge` });
      return undefined;
    }
    const origin = req.get("origin");
    if (origin === undefined) return chatbot;
    if (originAllowed(origin, await this.settings(), req.get("host"))) return chatbot;
    res.status(403).json(originRefusal(origin));
    return undefined;
  }

  /** The visitor id of a token this deployment issued, or a 403 said: nobody reads or writes another's conversation. */
  visitor(res: Response, token: string): string | undefined {
    const id = this.#identity.verify(token);
    if (id === undefined) {
      res
        .status(403)
        .json({ error: "this visitor token was not issued by this bridge: get one from POST /webchat/visitors" });
    }
    return id;
  }

  /**
   * Whether the visitor accepted the privacy policy in force (none: nothing to accept), or a 403 said: a changed
   * policy (another name or address) is accepted again.
   */
  async consented(res: Response, visitorId: string): Promise<boolean> {
    const policy = await this.policy();
    if (!policy) return true;
    const consent = await this.#consents.find(visitorId);
    if (consent?.policy.name === policy.name && consent.policy.url === policy.url) return true;
    res.status(403).json({
      error: `the visitor has not accepted the privacy policy ${JSON.stringify(policy.name)}: POST /webchat/consent first`,
    });
    return false;
  }
}
