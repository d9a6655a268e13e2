import { describe, expect, it } from "vitest";
import {
  minimalListing,
  newChatbot,
  newMessage,
  newWorkspace,
  SETTINGS,
  type StoreGetter,
  unique,
} from "./fixtures.js";

/** Workspaces, chatbots and the cascade when a chatbot goes. */
export function accountsContract(store: StoreGetter): void {
  describe("workspaces", () => {
    it("creates a workspace and finds it by secret key, session key and name", async () => {
      const input = { name: unique("Acme Homes"), secretKey: unique("secret"), sessionKey: unique("session") };
      const workspace = await store().workspaces.create(input);

      expect(workspace).toEqual({ id: expect.any(Number), ...input, createdAt: expect.any(Date) });
      expect(Number.isInteger(workspace.id)).toBe(true);
      expect(await store().workspaces.bySecretKey(input.secretKey)).toEqual(workspace);
      expect(await store().workspaces.bySessionKey(input.sessionKey)).toEqual(workspace);
      expect(await store().workspaces.byName(input.name)).toEqual(workspace);
    });

    it("finds nothing for unknown credentials or names", async () => {
      expect(await store().workspaces.bySecretKey(unique("nope"))).toBeUndefined();
      expect(await store().workspaces.bySessionKey(unique("nope"))).toBeUndefined();
      expect(await store().workspaces.byName(unique("nope"))).toBeUndefined();
    });

    it("does not match a credential of the other kind", async () => {
      const workspace = await newWorkspace(store());
      expect(await store().workspaces.bySecretKey(workspace.sessionKey)).toBeUndefined();
      expect(await store().workspaces.bySessionKey(workspace.secretKey)).toBeUndefined();
    });

    it("rejects a secret key or session key already in use", async () => {
      const workspace = await newWorkspace(store());
      await expect(
        store().workspaces.create({ name: "copy", secretKey: workspace.secretKey, sessionKey: unique("session") }),
      ).rejects.toThrow();
      await expect(
        store().workspaces.create({ name: "copy", secretKey: unique("secret"), sessionKey: workspace.sessionKey }),
      ).rejects.toThrow();
    });
  });

  describe("chatbots", () => {
    it("creates a chatbot and round-trips every setting", async () => {
      const workspace = await newWorkspace(store());
      const serialNumber = unique("chatbot");
      const chatbot = await store().chatbots.create({
        workspaceId: workspace.id,
        serialNumber,
        type: 3,
        settings: SETTINGS,
      });

      expect(chatbot).toEqual({
        id: expect.any(Number),
        serialNumber,
        workspaceId: workspace.id,
        type: 3,
        settings: SETTINGS,
        createdAt: expect.any(Date),
      });
      expect(await store().chatbots.bySerialNumber(serialNumber)).toEqual(chatbot);
      expect(await store().chatbots.byId(chatbot.id)).toEqual(chatbot);
    });

    it("finds nothing for an unknown serial number or id", async () => {
      expect(await store().chatbots.bySerialNumber(unique("nope"))).toBeUndefined();
      expect(await store().chatbots.byId(987_654_321)).toBeUndefined();
    });

    it("rejects a serial number already in use", async () => {
      const chatbot = await newChatbot(store());
      await expect(
        store().chatbots.create({
          workspaceId: chatbot.workspaceId,
          serialNumber: chatbot.serialNumber,
          type: 0,
          settings: SETTINGS,
        }),
      ).rejects.toThrow();
    });

    it("replaces the settings of one chatbot only", async () => {
      const chatbot = await newChatbot(store());
      const other = await newChatbot(store(), chatbot.workspaceId);
      const settings = { ...SETTINGS, Name: "Renamed", Temperature: 0, VerifyDomain: false, MessageLimit: 1000 };

      await store().chatbots.updateSettings(chatbot.id, settings);

      expect((await store().chatbots.byId(chatbot.id))?.settings).toEqual(settings);
      expect((await store().chatbots.byId(other.id))?.settings).toEqual(SETTINGS);
    });

    it("lists a workspace's chatbots in creation order", async () => {
      const workspace = await newWorkspace(store());
      const first = await newChatbot(store(), workspace.id);
      const second = await newChatbot(store(), workspace.id);
      await newChatbot(store());

      expect(await store().chatbots.listByWorkspace(workspace.id)).toEqual([first, second]);
      expect(await store().chatbots.listByWorkspace(987_654_321)).toEqual([]);
    });

    it("lists every chatbot of every workspace in id order", async () => {
      const first = await newChatbot(store());
      const second = await newChatbot(store());

      const all = await store().chatbots.listAll();
      expect(all).toEqual(expect.arrayContaining([first, second]));
      const ids = all.map((chatbot) => chatbot.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    it("removes a chatbot with its sessions, messages and listings, and nothing of other chatbots", async () => {
      const chatbot = await newChatbot(store());
      const other = await newChatbot(store(), chatbot.workspaceId);
      const seed = async (id: number) => {
        const session = await store().sessions.create({ chatbotId: id, uri: "https://example.com" });
        await store().messages.add(newMessage(session, "User", "hi"));
        const listing = await store().listings.create(id, minimalListing());
        return { session, listing };
      };
      const gone = await seed(chatbot.id);
      const kept = await seed(other.id);

      await store().chatbots.remove(chatbot.id);

      expect(await store().chatbots.byId(chatbot.id)).toBeUndefined();
      expect(await store().sessions.byId(gone.session.id)).toBeUndefined();
      expect(await store().messages.recent(gone.session.id, 10)).toEqual([]);
      expect(await store().listings.count(chatbot.id)).toBe(0);
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(gone.listing.ID)])).toEqual([]);

      expect(await store().chatbots.byId(other.id)).toEqual(other);
      expect(await store().sessions.byId(kept.session.id)).toEqual(kept.session);
      expect(await store().messages.recent(kept.session.id, 10)).toHaveLength(1);
      expect(await store().listings.count(other.id)).toBe(1);
    });
  });
}
