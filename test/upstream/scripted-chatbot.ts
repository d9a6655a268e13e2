import type { ListingListItem } from "../../src/api/types.js";
import type { ChatbotSettings } from "../../src/client/index.js";
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
  /**
   * After `fragments` fragments, wait for `until` before the rest: an answer that stays under way until the test
   * lets it go (a kill that must find every answer streaming, whatever the machine's speed).
   */
  holdAfter?: { fragments: number; until: Promise<void> };
  /** Answer this HTTP status with a failure envelope instead of a stream. */
  failWith?: number;
  /** With `failWith`: the Retry-After header, in seconds (the chatbot's limits say when questions are taken again). */
  retryAfterSeconds?: number;
  /** Mark the final object `NoAnswer: true`, as the embedded server does when the chatbot had no answer. */
  noAnswer?: boolean;
}

/** A question the chatbot received. */
export interface RecordedAsk {
  sessionId: number;
  content: string;
  /** As sent: `Text` when the request left it out or null. */
  chatAskType: string;
  fileIds: number[];
  /** When it arrived (performance.now()). */
  at: number;
  /** When the first piece of the answer was written (performance.now()). */
  firstFragmentAt?: number;
  /** When the last piece of the answer was written, or the stream was cut (performance.now()). */
  answeredAt?: number;
  /** Resolves when the bridge closed the request before the answer ended (a cancelled stream). */
  clientGone: Promise<void>;
}

/**
 * An answer that says what was asked: "Image with 2 file(s): <question>", so tests see the ask type, the number
 * of files and the caption in the text the user got.
 */
export function describingTheAsk(question: string, ask: RecordedAsk): AnswerScript {
  return { fragments: [`${ask.chatAskType} with ${ask.fileIds.length} file(s)`, question ? `: ${question}` : ""] };
}

/**
 * A RealEstateList item with every field set as the API sends it (strings), `overrides` over a 3-bedroom house for
 * sale in Austin at $450,000 whose page is `https://homes.test/listing/<mls in lower case>`.
 */
export function listingItem(mlsNumber: string, overrides: Partial<ListingListItem> = {}): ListingListItem {
  return {
    ID: 1,
    PropertyType: "House",
    SaleType: "for_sale",
    Status: "Active",
    Images: `https://images.homes.test/${mlsNumber.toLowerCase()}-1.jpg,https://images.homes.test/${mlsNumber.toLowerCase()}-2.jpg`,
    CurrencySymbol: "$",
    State: "TX",
    City: "Austin",
    Address: "12 Oak St",
    ZIP: "78701",
    Area: "",
    Url: `https://homes.test/listing/${mlsNumber.toLowerCase()}`,
    Tours: "",
    MLSNumber: mlsNumber,
    Description: "A bright house.",
    SpaceType: "",
    Price: "450000",
    LATITUDE: null,
    LONGITUDE: null,
    Bathrooms: "2",
    Bedrooms: "3",
    YearBuilt: "1999",
    DaysOnMarket: "4",
    LotArea: "",
    BuildingArea: "1850",
    ParkingSpots: "1",
    ExtensionColumn: "",
    RentPrice: "",
    DepositFee: "",
    SalePrice: "450000",
    ...overrides,
  } as ListingListItem;
}

/** A file uploaded through the three steps (GetPreUploadUrl, PUT, UploadSuccess). */
export interface RecordedUpload {
  fileStoreId: number;
  fileName: string;
  /** The PUT's bytes and Content-Type, once they came. */
  bytes?: Buffer;
  contentType?: string;
  confirmed: boolean;
}

/**
 * A chatbot API whose answers the test scripts: sessions from GetSession (numbered from 101), a welcome from Get,
 * a model list and an empty history (what the bridge's probe reads),
 * the three-step upload (files numbered from 501, kept with their bytes), LeadAdd (recorded), and ClientAsk streaming the fragments of
 * {@link answer} in any framing, slowly, broken, or failing on demand. By default it answers "Answer to <question>"
 * in three fragments; a question with files is refused (400) unless every file id was uploaded and confirmed.
 */
export class ScriptedChatbot {
  readonly asks: RecordedAsk[] = [];
  /** GetSession calls so far, per serial number. */
  readonly sessions: { serialNumber: string; sessionId: number }[] = [];
  readonly uploads = new Map<number, RecordedUpload>();
  /** What RealEstateList serves, filtered by MLSNumber when the request names one (paged otherwise). */
  listings: ListingListItem[] = [];
  /** RealEstateList requests so far, as sent. */
  readonly listingQueries: Record<string, unknown>[] = [];
  /** LeadAdd requests so far, as sent (handoffs, viewings, listing link visits). */
  readonly leads: Record<string, unknown>[] = [];
  /** The settings `Get` answers (WelcomeMessage, SuggestedMessage, TalkToHumanEmail…). */
  welcome: ChatbotSettings = { WelcomeMessage: "Welcome to **Homes**!", SuggestedMessage: "Homes for sale\nRentals" };
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

  /** Forgets questions, sessions and uploads (ids keep counting, so a test never sees an old one again). */
  reset(): void {
    this.asks.length = 0;
    this.sessions.length = 0;
    this.uploads.clear();
  }

  /** The uploaded file behind a file id of a question. */
  upload(fileId: number): RecordedUpload {
    const upload = this.uploads.get(fileId);
    if (!upload) throw new Error(`no upload ${fileId}`);
    return upload;
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
    // What the bridge probes at start and for /readyz: the models, and a day's (empty) history of the chatbot.
    this.api.route("GET", "/chat/Chatbot/ModelList", (_req, res) =>
      sendEnvelope(res, [{ Key: "2", Value: "gpt-4o", Status: true }]),
    );
    this.api.route("POST", "/chat/Chatbot/ChatContentHistory", (_req, res) => sendEnvelope(res, []));
    this.api.route("POST", "/chat/Chatbot/LeadAdd", (req, res) => {
      const lead = req.body as Record<string, unknown>;
      this.leads.push({ ...lead });
      const { sessionID = null, ...fields } = lead;
      const created = { Name: "", Content: "", ...fields, SessionID: sessionID, CreateTime: new Date().toISOString() };
      sendEnvelope(res, created);
    });
    this.api.route("POST", "/chat/Chatbot/RealEstateList", (req, res) => {
      const query = req.body as { MLSNumber?: string; PageNumber?: number; PageSize?: number };
      this.listingQueries.push({ ...query });
      const matching = this.listings.filter((item) => !query.MLSNumber || item.MLSNumber === query.MLSNumber);
      const size = query.PageSize ?? 20;
      const from = ((query.PageNumber ?? 1) - 1) * size;
      sendEnvelope(res, { List: matching.slice(from, from + size), VirtualCount: matching.length });
    });
    this.#routeUploads();
    this.api.route("POST", "/chat/Chat/ClientAsk", async (req, res) => {
      const body = req.body as { sessionID: number; content: string; chatAskType?: string | null; fileIds?: number[] };
      const ask: RecordedAsk = {
        sessionId: body.sessionID,
        content: body.content,
        chatAskType: body.chatAskType ?? "Text",
        fileIds: body.fileIds ?? [],
        at: performance.now(),
        clientGone: req.clientGone,
      };
      this.asks.push(ask);
      const missing = ask.fileIds.find((id) => !this.uploads.get(id)?.confirmed);
      if (missing !== undefined) {
        return sendEnvelope(res, null, { status: 400, message: `File ${missing} is not uploaded and confirmed` });
      }
      const script = this.answer(body.content, ask);
      if (script.failWith !== undefined) {
        const headers =
          script.retryAfterSeconds === undefined ? undefined : { "retry-after": String(script.retryAfterSeconds) };
        sendEnvelope(res, null, { status: script.failWith, message: "scripted failure", headers });
        ask.answeredAt = performance.now();
        return;
      }
      if (script.firstFragmentMs) await sleep(script.firstFragmentMs);
      const frame = framings[script.framing ?? "sse"];
      const objects: object[] = answerObjects(script.fragments);
      if (script.noAnswer) objects.push({ ...(objects.pop() as object), NoAnswer: true });
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
        ask.firstFragmentAt ??= performance.now();
        if (index + 1 === script.holdAfter?.fragments) await script.holdAfter.until;
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

  #routeUploads(): void {
    let nextFile = 500;
    this.api.route("POST", "/chat/User/GetPreUploadUrl", (req, res) => {
      const fileStoreId = ++nextFile;
      const fileName = String((req.body as { fileName?: unknown }).fileName);
      this.uploads.set(fileStoreId, { fileStoreId, fileName, confirmed: false });
      // A string id, as the hosted platform's example shows.
      sendEnvelope(res, {
        FileStoreId: String(fileStoreId),
        PreUploadUrl: `${this.url}/upload?file=${fileStoreId}`,
      });
    });
    this.api.route("PUT", "/upload", (req, res) => {
      const upload = this.uploads.get(Number(req.query.get("file")));
      if (!upload) return void res.writeHead(404).end();
      upload.bytes = req.raw;
      upload.contentType = req.headers["content-type"];
      res.writeHead(200).end();
    });
    this.api.route("POST", "/chat/User/UploadSuccess", (req, res) => {
      const upload = this.uploads.get(Number((req.body as { FileStoreId?: unknown }).FileStoreId));
      if (!upload?.bytes) return sendEnvelope(res, null, { status: 400, message: "nothing uploaded" });
      upload.confirmed = true;
      sendEnvelope(res, null);
    });
  }
}
