import express, { Router } from "express";
import { z } from "zod";
import { defineChannelPlugin, startEach } from "../../src/plugin/channel-plugin.js";
import { sameSecret } from "../../src/plugin/plugin-api.js";
import { PigeonChannel } from "./outbound.js";

const token = z.string().regex(/^coo-[a-z0-9]{8,}$/, "must look like coo-… (8 or more letters and digits)");

/** What the pigeon platform posts to its webhook. */
const pigeonPost = z.object({ id: z.string().min(1), from: z.string().min(1), text: z.string().min(1) });

/** The pigeon channels started, by bot id: where the test reads what was sent. */
export const lofts = new Map<string, PigeonChannel>();

/**
 * A throwaway channel, written only to prove the plugin contract: one folder, one variable, one BRIDGE_CONFIG entry,
 * a webhook per bot (`POST /webhooks/pigeon[/<botId>]`, with the bot's token in `x-pigeon-token`), answers edited
 * in place. Nothing outside this folder knows it.
 */
export const pigeonPlugin = defineChannelPlugin({
  name: "pigeon",
  variables: {
    PIGEON_TOKEN: {
      schema: token.optional(),
      fix: "the loft's token, coo-…, or leave it unset to disable pigeons",
      secret: true,
    },
  },
  settingsFromVariables: (values) => ({ token: values.PIGEON_TOKEN }),
  botEntry: z.strictObject({ token }),
  settingsForBot: (entry: { token: string }) => ({ token: entry.token as string | undefined }),
  distinct: { of: (entry) => entry.token, problem: () => "two bots share one pigeon token." },
  start: ({ bots, bridge, routes, receive }) =>
    startEach(bots, async ({ botId, settings }) => {
      const name = botId === "default" ? "Pigeon" : `Pigeon (${botId})`;
      const stop = async () => {};
      if (!settings.token) return { status: { name, enabled: false, detail: "set PIGEON_TOKEN to enable" }, stop };
      const secret = settings.token;
      const channel = new PigeonChannel(botId);
      lofts.set(botId, channel);
      bridge.attach(channel);
      if (!receive) return { status: { name, enabled: true, detail: "answering only" }, stop };
      const path = botId === "default" ? "/webhooks/pigeon" : `/webhooks/pigeon/${botId}`;
      const router = Router();
      router.post(path, express.json(), async (req, res) => {
        if (!sameSecret(secret, req.get("x-pigeon-token") ?? "")) {
          res.status(401).json({ error: "wrong or missing x-pigeon-token" });
          return;
        }
        const post = pigeonPost.safeParse(req.body);
        if (!post.success) {
          res.status(400).json({ error: post.error.issues[0]?.message });
          return;
        }
        const { id, from, text } = post.data;
        const outcome = await bridge.accept({
          channel: "pigeon",
          botId,
          eventId: id,
          target: { chatId: from, isGroup: false },
          user: { id: from },
          text,
          media: [],
          receivedAt: new Date(),
        });
        res.status(outcome === "stopping" ? 503 : 200).json({ status: outcome });
      });
      routes.mount(router);
      return { status: { name, enabled: true, detail: `webhook ${path}` }, stop };
    }),
});
