import { randomBytes } from "node:crypto";
import type { ChatbotSettings } from "../../api/types.js";
import type { Chatbot, Workspace } from "../domain.js";
import { chatbotNotFound } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";
import { defaultSettings } from "./default-settings.js";
import type { EngineCatalog } from "./engine-catalog.js";
import { utcDays } from "./utc-days.js";

/** Chatbots of a workspace: create, edit, read, remove, open sessions, read history. */
export class ChatbotService {
  constructor(
    private readonly store: ApiStore,
    private readonly engines: EngineCatalog,
  ) {}

  /** The chatbot if it exists and belongs to the workspace; otherwise the same 404 either way. */
  async owned(workspace: Workspace, serialNumber: string): Promise<Chatbot> {
    const chatbot = await this.store.chatbots.bySerialNumber(serialNumber);
    if (!chatbot || chatbot.workspaceId !== workspace.id) throw chatbotNotFound(serialNumber);
    return chatbot;
  }

  /** Creates a chatbot with default settings; the serial number is 32 hex characters like the hosted one's. */
  async add(
    workspace: Workspace,
    input: { timeZone: string; type: number; serialNumber?: string; settings?: ChatbotSettings },
  ): Promise<Chatbot> {
    const settings = {
      ...defaultSettings({ timeZone: input.timeZone, model: this.engines.defaultModelKey }),
      ...input.settings,
    };
    return this.store.chatbots.create({
      workspaceId: workspace.id,
      serialNumber: input.serialNumber ?? randomBytes(16).toString("hex"),
      type: input.type,
      settings,
    });
  }

  /** Applies the given settings; omitted ones stay. The request's schema has checked `Model` against ModelList. */
  async edit(workspace: Workspace, serialNumber: string, changes: ChatbotSettings): Promise<void> {
    const chatbot = await this.owned(workspace, serialNumber);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    await this.store.chatbots.updateSettings(chatbot.id, { ...chatbot.settings, ...defined });
  }

  async remove(workspace: Workspace, serialNumber: string): Promise<void> {
    const chatbot = await this.owned(workspace, serialNumber);
    await this.store.chatbots.remove(chatbot.id);
  }

  /** Opens a chat session (GetSession). */
  async openSession(workspace: Workspace, serialNumber: string, uri: string): Promise<number> {
    const chatbot = await this.owned(workspace, serialNumber);
    return (await this.store.sessions.create({ chatbotId: chatbot.id, uri })).id;
  }

  /** ChatContentHistory: sessions with their messages; dates are whole UTC days, EndTime included. */
  async history(
    workspace: Workspace,
    query: { SerialNumber: string; StartTime?: string | undefined; EndTime?: string | undefined },
  ) {
    const chatbot = await this.owned(workspace, query.SerialNumber);
    const range = utcDays(query.StartTime, query.EndTime);
    const transcripts = await this.store.messages.transcripts(chatbot.id, range);
    return transcripts.map(({ session, messages }) => ({
      SessionID: session.id,
      CreateTime: session.createdAt.toISOString(),
      URI: session.uri,
      Messages: messages.map((message) => ({ Type: message.role, Content: message.content })),
    }));
  }
}
