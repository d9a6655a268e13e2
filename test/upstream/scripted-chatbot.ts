import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "./fake-chatbot-api.js";

/** How the chatbot answers one question. */
export interface AnswerScript {
  /** The answer's fragments, streamed in order; the final object carries their concatenation. */
  fragments: string[];
  framing?: keyof typeof framings;
  /** "Thinking time" before the first fragment (default 0). */
  firstFragmentMs?: number;
  /** Pause after each fragment (default 10 ms). */
  pauseMs?: number;
  /** Cut the connection after this many fragments, without the final object: a broken stream. */
  breakAfter?: number;
  /** Answer this HTTP status with a failure envelope instead of a stream. */
  failWith?: number;
}

/** A question the chatbot received. */
export interface RecordedAsk {
  sessionId: number;
  content: string;
  /** When it arrived (performance.now()). */
  at: number;
  /** When the last byte of the answer was written, or the stream was cut (performance.now()). */
  answeredAt?: number;
  /** Resolves when the bridge closed the request before the answer ended (a cancelled stream). */
  clientGone: Promise<void>;
}

/**
 * A chatbot API whose answers the test scripts: sessions from GetSession (numbered from 101), a welcome from Get,
 * and ClientAsk streaming the fragments of {@link answer} in any framing, slowly, broken, or failing on demand.
 * By default it answers "Answer to <question>" in three fragments.
 */
export class ScriptedChatbot {
  readonly asks: RecordedAsk[] = [];
  /** GetSession calls so far, per serial number. */
  readonly sessions: { serialNumber: string; sessionId: number }[] = [];
  welcome = { WelcomeMessage: "Welcome to **Homes**!", SuggestedMessage: "Homes for sale\nRentals" };
  answer: (question: string, ask: RecordedAsk) => AnswerScript = (question) => ({
    fragments: ["Answer ", "to ", question],
  });

  private constructor(readonly api: FakeChatbotApi) {}

  static async start(): Promise<ScriptedChatbot> {
    const chatbot = new ScriptedChatbot(await FakeChatbotApi.start());
    chatbot.#route();
    return chatbot;
  }

  get url(): string {
    return this.api.url;
  }

  /** Forgets questions and sessions (session ids keep counting, so a test never sees an old one again). */
  reset(): void {
    this.asks.length = 0;
    this.sessions.length = 0;
  }

  close(): Promise<void> {
    return this.api.close();
  }

  #route(): void {
    let nextSession = 100;
    this.api.route("POST", "/chat/Chatbot/GetSession", (req, res) => {
      const sessionId = ++nextSession;
      this.sessions.push({ serialNumber: String((req.body as { serialNumber?: unknown }).serialNumber), sessionId });
      sendEnvelope(res, { SessionID: sessionId });
    });
    this.api.route("POST", "/chat/Chatbot/Get", (req, res) =>
      sendEnvelope(res, { serialNumber: (req.body as { serialNumber?: unknown }).serialNumber, ...this.welcome }),
    );
    this.api.route("POST", "/chat/Chat/ClientAsk", async (req, res) => {
      const body = req.body as { sessionID: number; content: string };
      const ask: RecordedAsk = {
        sessionId: body.sessionID,
        content: body.content,
        at: performance.now(),
        clientGone: req.clientGone,
      };
      this.asks.push(ask);
      const script = this.answer(body.content, ask);
      if (script.failWith !== undefined) {
        sendEnvelope(res, null, { status: script.failWith, message: "scripted failure" });
        ask.answeredAt = performance.now();
        return;
      }
      if (script.firstFragmentMs) await new Promise((resolve) => setTimeout(resolve, script.firstFragmentMs));
      const frame = framings[script.framing ?? "sse"];
      const objects = answerObjects(script.fragments);
      if (script.breakAfter === undefined) {
        // Each fragment as its own chunk, the final object (and [DONE] in SSE) in the last one.
        const pieces = objects.slice(0, -2).map((object) => frame([object]).replace(/data: \[DONE\]\n\n$/, ""));
        pieces.push(frame(objects.slice(-2)));
        await writeSlowly(res, pieces, { pauseMs: script.pauseMs ?? 10 });
      } else {
        const pieces = objects
          .slice(0, script.breakAfter)
          .map((object) => frame([object]).replace(/data: \[DONE\]\n\n$/, ""));
        await writeSlowly(res, pieces, { pauseMs: script.pauseMs ?? 10, end: false });
        res.destroy();
      }
      ask.answeredAt = performance.now();
    });
  }
}
