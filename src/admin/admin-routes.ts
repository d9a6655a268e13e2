import express, { type NextFunction, type Request, type Response, Router } from "express";
import { sameSecret } from "../common/secrets.js";
import type { HandoffDesk } from "../features/handoff/handoff-desk.js";

/** One conversation handed to a person, as the admin endpoint and `chatbridge handoff list` show it. */
export interface HandoffView {
  conversation: string;
  channel: string;
  botId: string;
  user: { id: string; name?: string | undefined; handle?: string | undefined; link?: string | undefined };
  requestedAt: string;
  until: string;
  mailTo: string;
  /** Messages the user wrote since, not mailed yet. */
  waitingFollowUps: number;
}

/**
 * The operator's HTTP endpoints, under `/admin`, each needing `Authorization: Bearer <ADMIN_TOKEN>` (compared in
 * constant time; 401 otherwise). Without ADMIN_TOKEN they do not exist (404), so nothing is exposed by default.
 * - `GET /admin/handoffs`: the conversations a person has.
 * - `POST /admin/handoffs/resume` `{ "conversation": "…" }`: gives one back to the bot; the user is told.
 */
export function adminRoutes(handoffs: HandoffDesk, adminToken: string | undefined): Router {
  const router = Router();
  if (!adminToken) return router;
  router.use("/admin", (req: Request, res: Response, next: NextFunction) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "")?.[1]?.trim() ?? "";
    if (!sameSecret(adminToken, given)) {
      res.status(401).set("www-authenticate", "Bearer").json({ error: "send Authorization: Bearer <ADMIN_TOKEN>" });
      return;
    }
    next();
  });
  router.get("/admin/handoffs", async (_req, res) => {
    const list = await handoffs.list();
    res.json({ handoffs: list.map(view) });
  });
  router.post("/admin/handoffs/resume", express.json({ limit: "16kb" }), async (req, res) => {
    const conversation = (req.body as { conversation?: unknown } | undefined)?.conversation;
    if (typeof conversation !== "string" || conversation === "") {
      res.status(400).json({ error: 'the body must be {"conversation": "<a conversation from GET /admin/handoffs>"}' });
      return;
    }
    // Queued in the conversation, so that whichever process holds it gives it back in turn and tells the user.
    const resumed = await handoffs.requestResume(conversation);
    if (!resumed) {
      res.status(404).json({ error: `no conversation ${JSON.stringify(conversation)} is with a person` });
      return;
    }
    res.json({ resumed: view(resumed) });
  });
  return router;
}

function view(handoff: Awaited<ReturnType<HandoffDesk["list"]>>[number]): HandoffView {
  return {
    conversation: handoff.conversation,
    channel: handoff.channel,
    botId: handoff.botId,
    user: handoff.user,
    requestedAt: new Date(handoff.requestedAt).toISOString(),
    until: new Date(handoff.until).toISOString(),
    mailTo: handoff.mailTo,
    waitingFollowUps: handoff.followUps.length,
  };
}
