import type { RequestHandler } from "express";
import { z } from "zod";
import type { PrivacyConsents } from "../privacy-consents.js";
import { type VisitorIdentity, visitorToken } from "../visitor-identity.js";
import type { VisitorLimits } from "../visitor-limits.js";
import type { WebChatAdmission } from "./admission.js";
import { named, parsedBody, serialNumber } from "./request-shape.js";

/** A consent the web chat posts: whose, and for which chatbot (none: the web chat's). */
const consentBody = z.object({ visitorId: visitorToken, chatbot: serialNumber.optional() });

/**
 * `POST /webchat/visitors`: a new visitor's identity, a token signed by the bridge (see visitor-identity.ts), so
 * that the page only ever reaches the conversation it was given; limited per client address like any request.
 */
export function visitorsRoute(
  admission: WebChatAdmission,
  identity: VisitorIdentity,
  limits: VisitorLimits,
): RequestHandler {
  return async (req, res) => {
    if (!(await admission.chatbot(req, res, named(req.query.chatbot)))) return;
    if (!(await limits.admit(req, res, "identity"))) return;
    res.status(201).set("cache-control", "no-store").json({ visitor: identity.issue() });
  };
}

/**
 * `POST /webchat/consent`: records that the visitor accepted the chatbot's privacy policy (privacy-consents.ts), with
 * when and from which page; while a policy is in force, messages and uploads of a visitor who has not are refused.
 */
export function consentRoute(admission: WebChatAdmission, consents: PrivacyConsents): RequestHandler {
  return async (req, res) => {
    const body = parsedBody(consentBody, req, res);
    if (!body || !(await admission.chatbot(req, res, body.chatbot))) return;
    const id = admission.visitor(res, body.visitorId);
    if (id === undefined) return;
    const policy = await admission.policy();
    if (!policy) {
      res.status(404).json({ error: "this chatbot has no privacy policy to accept" });
      return;
    }
    const consent = {
      at: new Date().toISOString(),
      policy: { name: policy.name, url: policy.url },
      origin: req.get("origin"),
    };
    const kept = await consents.record(id, consent).then(
      () => true,
      () => false,
    );
    if (!kept) {
      res.status(503).json({ error: "the consent could not be recorded: try again" });
      return;
    }
    res.status(201).set("cache-control", "no-store").json(consent);
  };
}
