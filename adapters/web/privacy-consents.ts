import type Keyv from "keyv";
import { WEB_CONSENT_PREFIX } from "./store-keys.js";

/**
 * How long a visitor's consent is kept: a little over a year, as long as a visitor's identity is worth keeping
 * in a browser, and long enough to show what a visitor accepted when a question about it comes months later.
 */
export const CONSENT_TTL_MS = 400 * 24 * 60 * 60 * 1000;

/** What a visitor accepted, when, and on which page. */
export interface PrivacyConsent {
  /** When the visitor pressed "I agree" (ISO 8601). */
  at: string;
  /** The policy's name and address as the widget showed them then (they may change later). */
  policy: { name: string; url?: string | undefined };
  /** The page's origin, when the browser said it. */
  origin?: string | undefined;
}

/**
 * Visitors' consent to the chatbot's privacy policy, recorded by the bridge (in the store, shared by every
 * instance) rather than only in the visitor's browser: the agency can show what was accepted and when, and the
 * bridge takes no message from a visitor who has not accepted the policy in force.
 */
export class PrivacyConsents {
  constructor(private readonly keyv: Keyv) {}

  async record(visitorId: string, consent: PrivacyConsent): Promise<void> {
    await this.keyv.set(`${WEB_CONSENT_PREFIX}${visitorId}`, consent, CONSENT_TTL_MS);
  }

  /** The visitor's consent, or undefined when they have not given it (or it expired). */
  async find(visitorId: string): Promise<PrivacyConsent | undefined> {
    return (await this.keyv.get<PrivacyConsent>(`${WEB_CONSENT_PREFIX}${visitorId}`)) ?? undefined;
  }
}
