import type { AskInput } from "../../api/requests/chat.js";
import type { Chatbot, ChatMessage, ChatSession, Workspace } from "../domain.js";
import type { AnswerEngine, EngineRequest } from "../engine/types.js";
import { ApiError } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";
import { enforceLimits } from "./ask-limits.js";
import type { EngineCatalog } from "./engine-catalog.js";
import type { FileService } from "./files.js";
import type { LeadService } from "./leads.js";

/** How many earlier messages of the session an engine sees. */
const HISTORY_MESSAGES = 20;

/** A question that passed every check and is stored, ready to be answered. */
export interface PreparedAsk {
  chatbot: Chatbot;
  session: ChatSession;
  question: ChatMessage;
  engine: AnswerEngine;
  request: Omit<EngineRequest, "signal">;
}

/** What answering yields: text fragments (the AnswerSuffix included), then the stored answer's ids. */
export type AskEvent =
  | { type: "text"; text: string }
  | { type: "final"; questionId: number; answerId: number; answer: string; totalToken: number; noAnswer: boolean };

function engineFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: unknown }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 502 || status === 504) return new ApiError(status, message);
  return new ApiError(500, "The answer engine failed");
}

/**
 * ClientAsk: checks the session, the content and files, the chatbot's limits; stores the question, and the
 * contact details in it as leads (a voice question's once transcribed); runs the chatbot's engine; appends
 * AnswerSuffix; stores the answer (as partial when the client went away).
 */
export class ChatService {
  readonly #queues = new Map<number, Promise<unknown>>();
  readonly #answering = new Set<Promise<void>>();

  constructor(
    private readonly store: ApiStore,
    private readonly engines: EngineCatalog,
    private readonly files: FileService,
    private readonly leads: LeadService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async prepare(workspace: Workspace, input: AskInput): Promise<PreparedAsk> {
    const session = await this.store.sessions.byId(input.sessionID);
    const chatbot = session && (await this.store.chatbots.byId(session.chatbotId));
    if (!session || !chatbot || chatbot.workspaceId !== workspace.id) {
      throw new ApiError(404, `Session ${input.sessionID} not found; create one with GetSession`);
    }
    const attachments = await this.files.attachmentsFor(workspace, input.chatAskType, input.fileIds);
    const engine = this.engines.engineFor(chatbot.settings.Model);
    if (!engine) {
      throw new ApiError(
        502,
        `The chatbot's model ${chatbot.settings.Model} is not available on this server; choose one with Edit (see ModelList)`,
      );
    }
    const history = (await this.store.messages.recent(session.id, HISTORY_MESSAGES)).map(({ role, content }) => ({
      role,
      content,
    }));
    // The limit check and the insert run one at a time per chatbot, so concurrent questions cannot both slip under it.
    const question = await this.#oneAtATime(chatbot.id, async () => {
      await enforceLimits(this.store, chatbot, this.now());
      return this.store.messages.add({
        sessionId: session.id,
        chatbotId: chatbot.id,
        role: "User",
        content: input.content,
        askType: input.chatAskType,
        fileIds: input.fileIds,
        totalToken: 0,
        noAnswer: false,
        partial: false,
      });
    });
    await this.leads.recordContacts(session, input.content);
    const store = this.store;
    return {
      chatbot,
      session,
      question,
      engine,
      request: {
        chatbot,
        model: chatbot.settings.Model,
        question: input.content,
        askType: input.chatAskType,
        attachments,
        history,
        searchListings: (criteria) => store.listings.search(chatbot.id, criteria),
      },
    };
  }

  /** Resolves when every answer under way is finished and stored (partial ones included): for shutdown. */
  async drain(): Promise<void> {
    while (this.#answering.size > 0) await Promise.all(this.#answering);
  }

  /** Runs the engine. When `signal` fires, generation stops and what was said is stored as a partial answer. */
  async *answer(prepared: PreparedAsk, signal: AbortSignal): AsyncGenerator<AskEvent> {
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    this.#answering.add(finished);
    try {
      yield* this.#answer(prepared, signal);
    } finally {
      this.#answering.delete(finished);
      finish();
    }
  }

  async *#answer(prepared: PreparedAsk, signal: AbortSignal): AsyncGenerator<AskEvent> {
    let text = "";
    let outcome: { totalToken: number; noAnswer: boolean } | undefined;
    try {
      for await (const event of prepared.engine.answer({ ...prepared.request, signal })) {
        if (signal.aborted) break;
        if (event.type === "done") outcome = event;
        else if (event.type === "heard") {
          await this.store.messages.setContent(prepared.question.id, event.question);
          await this.leads.recordContacts(prepared.session, event.question);
        } else if (event.text) {
          text += event.text;
          yield { type: "text", text: event.text };
        }
      }
    } catch (error) {
      if (!signal.aborted) {
        await this.#store(prepared, text, { totalToken: 0, noAnswer: true }, true);
        throw engineFailure(error);
      }
    }
    if (signal.aborted || !outcome) {
      await this.#store(prepared, text, outcome ?? { totalToken: 0, noAnswer: text === "" }, true);
      if (signal.aborted) return;
      throw new ApiError(502, "The answer engine stopped without finishing its answer");
    }
    const suffix = prepared.chatbot.settings.AnswerSuffix;
    if (suffix) yield { type: "text", text: suffix };
    const answer = await this.#store(prepared, text + suffix, outcome, false);
    yield {
      type: "final",
      questionId: prepared.question.id,
      answerId: answer.id,
      answer: answer.content,
      totalToken: outcome.totalToken,
      noAnswer: outcome.noAnswer,
    };
  }

  #store(prepared: PreparedAsk, content: string, outcome: { totalToken: number; noAnswer: boolean }, partial: boolean) {
    return this.store.messages.add({
      sessionId: prepared.session.id,
      chatbotId: prepared.chatbot.id,
      role: "AI",
      content,
      askType: "Text",
      fileIds: [],
      totalToken: outcome.totalToken,
      noAnswer: outcome.noAnswer,
      partial,
    });
  }

  #oneAtATime<T>(key: number, task: () => Promise<T>): Promise<T> {
    const run = (this.#queues.get(key) ?? Promise.resolve()).then(task, task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, tail);
    void tail.then(() => {
      if (this.#queues.get(key) === tail) this.#queues.delete(key);
    });
    return run;
  }
}
