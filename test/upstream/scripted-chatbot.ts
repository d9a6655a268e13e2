import { answerObjects, FakeChatbotApi, framings, sendEnvelope } from "./fake-chatbot-api.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SSE framing ends every batch with `data: [DONE]`; only the last batch of a stream may. */
const withoutDone = (sse: string) => sse.replace(/data: \[DONE\]\n\n$/, "");

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
  /** When the last piece of the answer was written, or the stream was cut (performance.now()). */
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
      if (script.firstFragmentMs) await sleep(script.firstFragmentMs);
      const frame = framings[script.framing ?? "sse"];
      const objects = answerObjects(script.fragments);
      const broken = script.breakAfter !== undefined;
      // Each fragment as its own chunk; unless the stream breaks, the final object (and SSE's [DONE]) goes with the last.
      const pieces = broken
        ? objects.slice(0, script.breakAfter).map((object) => withoutDone(frame([object])))
        : [...objects.slice(0, -2).map((object) => withoutDone(frame([object]))), frame(objects.slice(-2))];
      res.writeHead(200, {
        "content-type": script.framing === "ndjson" ? "application/x-ndjson" : "text/event-stream",
      });
      res.flushHeaders();
      for (const [index, piece] of pieces.entries()) {
        if (res.destroyed) break;
        res.write(piece);
        if (index < pieces.length - 1) await sleep(script.pauseMs ?? 10);
      }
      if (broken) {
        // Let the last fragment leave before the connection is cut.
        await sleep(script.pauseMs ?? 10);
        res.destroy();
      } else res.end();
      ask.answeredAt = performance.now();
    });
  }
}
