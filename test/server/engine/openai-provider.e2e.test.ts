import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineError } from "../../../src/server/engine/engine-error.js";
import { OpenAiProvider } from "../../../src/server/engine/openai-provider.js";
import type { EngineEvent } from "../../../src/server/engine/types.js";
import { wav } from "../../support/media-fixtures.js";
import { until } from "../../support/waiting.js";
import { FakeOpenAi } from "../../upstream/fake-openai.js";
import { run } from "./engine-run.js";
import { historyOf, requestFor } from "./listings-fixture.js";

const API_KEY = "sk-test-secret-123";
/** A voice message of `seconds` as the API hands it over: 16-bit mono WAV at 8 kHz. */
const voice = (seconds: number) => ({ kind: "audio" as const, mime: "audio/wav", bytes: wav(seconds * 8000) });
let fake: FakeOpenAi;
let provider: OpenAiProvider;

beforeAll(async () => {
  fake = await FakeOpenAi.start();
  provider = new OpenAiProvider({ baseUrl: fake.baseUrl, apiKey: API_KEY, model: "gpt-4o-mini" });
});
afterAll(async () => {
  await fake.close();
});

async function failure(engine: OpenAiProvider, question = "hi"): Promise<EngineError> {
  const error = await run(engine, requestFor(question)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

type Message = { role: string; content: unknown };

/** The last request the fake received. */
function lastRequest() {
  const sent = fake.requests.at(-1);
  if (!sent) throw new Error("the fake received no request");
  return { ...sent, messages: sent.body.messages as Message[] };
}

const systemPrompt = () => String(lastRequest().messages[0]?.content);

describe("OpenAI-compatible provider: the request", () => {
  it("posts the model, the stream options, the mapped temperature and the conversation", async () => {
    fake.behave({ kind: "stream", fragments: ["Hola"] });
    const history = historyOf("homes in Austin");
    const request = requestFor("condos in Miami", {
      history,
      settings: { SystemMessage: "You are Sunrise Realty's assistant.", AIResponseLanguage: "Spanish", Temperature: 3 },
    });
    await run(provider, request);
    const sent = lastRequest();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body).toMatchObject({
      model: "gpt-4o-mini",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.6,
    });
    expect(sent.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.messages.slice(1)).toEqual([
      { role: "user", content: "homes in Austin" },
      { role: "assistant", content: "(an earlier answer)" },
      { role: "user", content: "condos in Miami" },
    ]);
    const system = systemPrompt();
    expect(system).toMatch(/^You are Sunrise Realty's assistant\.\n\nAnswer in Spanish\.\n\n/);
    expect(system).toContain("in Austin, Denver, Miami, San Antonio");
    expect(system).toContain("Listings matching what the user is looking for (2 of 2)");
    expect(system).toContain('"MLSNumber":"MLS300002"');
    expect(system).toContain('"MLSNumber":"MLS300004"');
    expect(system).not.toContain("MLS100001");
  });

  it("searches the listings with the embedded engine's understanding of the session", async () => {
    fake.behave({ kind: "stream", fragments: ["ok"] });
    const request = requestFor("and with 4 bedrooms?", { history: historyOf("homes in Austin") });
    await run(provider, request);
    expect(request.searches).toEqual([{ limit: 500 }, { city: "Austin", minBedrooms: 4, limit: 500 }]);
    expect(systemPrompt()).toContain("MLS100002");
  });

  it.each([
    [0, 0],
    [5, 1],
    [10, 2],
    [14, 2],
  ])("sends Temperature %d as %d", async (temperature, expected) => {
    fake.behave({ kind: "stream", fragments: ["ok"] });
    await run(provider, requestFor("hi", { settings: { Temperature: temperature } }));
    expect(lastRequest().body.temperature).toBe(expected);
  });

  it("sends every image as a data URL part, and makes no transcription call without a transcribe model", async () => {
    fake.behave({ kind: "stream", fragments: ["Nice kitchens."] });
    const before = fake.transcriptions.length;
    const attachments = [
      { kind: "image" as const, mime: "image/png", bytes: new Uint8Array([137, 80, 78, 71]) },
      { kind: "image" as const, mime: "image/jpeg", bytes: new Uint8Array([255, 216, 255]) },
      { kind: "image" as const, mime: "image/webp", bytes: new Uint8Array([82, 73, 70, 70]) },
    ];
    await run(provider, requestFor("Which of these is nicer?", { attachments }));
    expect(lastRequest().messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Which of these is nicer?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/" } },
        { type: "image_url", image_url: { url: "data:image/webp;base64,UklGRg==" } },
      ],
    });
    expect(fake.transcriptions.length).toBe(before);
  });

  it("sends images alone when there is no text", async () => {
    fake.behave({ kind: "stream", fragments: ["A house."] });
    const attachments = [{ kind: "image" as const, mime: "image/png", bytes: new Uint8Array([1]) }];
    await run(provider, requestFor("", { attachments }));
    expect(lastRequest().messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AQ==" } }],
    });
  });

  it("without a transcribe model, says a voice message came that the model cannot hear, and what to do", async () => {
    fake.behave({ kind: "stream", fragments: ["I can't listen to recordings, please type."] });
    const before = fake.transcriptions.length;
    const result = await run(provider, requestFor("", { attachments: [voice(12)] }));
    expect(lastRequest().messages.at(-1)).toEqual({
      role: "user",
      content:
        "[Attached: a voice message (12 s). You cannot listen to recordings: tell the user so and ask them to type their message.]",
    });
    expect(fake.transcriptions.length).toBe(before);
    expect(result.events.some((event) => event.type === "heard")).toBe(false);
  });

  it("mentions a video after the written message", async () => {
    fake.behave({ kind: "stream", fragments: ["ok"] });
    const video = { kind: "video" as const, mime: "video/x-matroska", bytes: new Uint8Array([0x1a, 0x45]) };
    await run(provider, requestFor("Is this house still available?", { attachments: [video] }));
    expect(lastRequest().messages.at(-1)).toEqual({
      role: "user",
      content:
        "Is this house still available?\n[Attached: a video. You cannot watch videos: tell the user so and ask them to describe in text what they are looking for.]",
    });
  });

  it("uses a default system message and sends no Authorization without a key", async () => {
    fake.behave({ kind: "stream", fragments: ["ok"] });
    const keyless = new OpenAiProvider({ baseUrl: `${fake.baseUrl}/`, model: "llama3.1" });
    await run(keyless, requestFor("hi", { settings: { SystemMessage: "", AIResponseLanguage: "" } }));
    const sent = lastRequest();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBeUndefined();
    expect(systemPrompt()).toMatch(/^You are the assistant of a real-estate agency\..*\n\nAnswer in English\./s);
  });
});

describe("OpenAI-compatible provider: voice messages with a transcribe model", () => {
  const transcribing = () =>
    new OpenAiProvider({ baseUrl: fake.baseUrl, apiKey: API_KEY, model: "gpt-4o-mini", transcribeModel: "whisper-1" });

  it("uploads the WAV to /audio/transcriptions and puts the transcript into the user's turn", async () => {
    fake.transcribeAs({ kind: "text", text: " Three bedroom homes in Austin, please. " });
    fake.behave({ kind: "stream", fragments: ["Here are two."] });
    const recording = voice(12);
    const request = requestFor("", { attachments: [recording] });
    const result = await run(transcribing(), request);
    const sent = fake.transcriptions.at(-1);
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent?.fields).toEqual({ model: "whisper-1", response_format: "json" });
    expect(sent?.file?.filename).toBe("audio.wav");
    expect(sent?.file?.contentType).toBe("audio/wav");
    expect(sent?.file?.bytes.equals(Buffer.from(recording.bytes))).toBe(true);
    const turn = "[Voice message] Three bedroom homes in Austin, please.";
    expect(lastRequest().messages.at(-1)).toEqual({ role: "user", content: turn });
    // The listings are searched for what was said.
    expect(request.searches.at(-1)).toEqual({ city: "Austin", minBedrooms: 3, limit: 500 });
    expect(systemPrompt()).toContain("MLS100001");
    expect(result.events[0]).toEqual({ type: "heard", question: turn });
    expect(result.text).toBe("Here are two.");
  });

  it("keeps the written message before the transcript", async () => {
    fake.transcribeAs({ kind: "text", text: "with a garden" });
    fake.behave({ kind: "stream", fragments: ["ok"] });
    await run(transcribing(), requestFor("Homes in Denver", { attachments: [voice(3)] }));
    expect(lastRequest().messages.at(-1)?.content).toBe("Homes in Denver\n[Voice message] with a garden");
  });

  it("says when no speech was recognised", async () => {
    fake.transcribeAs({ kind: "text", text: "" });
    fake.behave({ kind: "stream", fragments: ["ok"] });
    await run(transcribing(), requestFor("", { attachments: [voice(2)] }));
    expect(lastRequest().messages.at(-1)?.content).toBe(
      "[Attached: a voice message (2 s) in which no speech was recognised.]",
    );
  });

  it("maps a transcription error to 502 without the key, and asks for no completion", async () => {
    const message = `Incorrect API key provided: ${API_KEY}.`;
    fake.transcribeAs({ kind: "status", status: 401, body: { error: { message } } });
    const before = fake.requests.length;
    const error = await run(transcribing(), requestFor("", { attachments: [voice(1)] })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).status).toBe(502);
    expect((error as EngineError).message).toBe(
      `LLM provider ${fake.baseUrl} (audio transcription) answered HTTP 401: Incorrect API key provided: ***.`,
    );
    expect(fake.requests.length).toBe(before);
  });

  it("maps an answer without text to 502", async () => {
    fake.transcribeAs({ kind: "status", status: 200, body: { transcript: "hello" } });
    const error = await run(transcribing(), requestFor("", { attachments: [voice(1)] })).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 502,
      message: `LLM provider ${fake.baseUrl} (audio transcription) answered without a "text" field`,
    });
  });

  it("maps a transcription that does not come in time to 504", async () => {
    fake.transcribeAs({ kind: "hang" });
    const impatient = new OpenAiProvider({ baseUrl: fake.baseUrl, model: "m", transcribeModel: "w", timeoutMs: 150 });
    const error = await run(impatient, requestFor("", { attachments: [voice(1)] })).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 504,
      message: `LLM provider ${fake.baseUrl} (audio transcription) did not answer within 150 ms`,
    });
  });

  it("transcribes nothing for a question without audio", async () => {
    fake.behave({ kind: "stream", fragments: ["ok"] });
    const before = fake.transcriptions.length;
    const result = await run(transcribing(), requestFor("homes in Austin"));
    expect(fake.transcriptions.length).toBe(before);
    expect(result.events[0]).toEqual({ type: "text", text: "ok" });
  });

  it("stops quietly when the client goes away during the transcription", async () => {
    fake.transcribeAs({ kind: "hang" });
    const controller = new AbortController();
    const before = { completions: fake.requests.length, transcriptions: fake.transcriptions.length };
    const events = run(transcribing(), requestFor("", { attachments: [voice(1)], signal: controller.signal }));
    await until(() => (fake.transcriptions.length > before.transcriptions ? true : undefined));
    controller.abort();
    expect((await events).events).toEqual([]);
    expect(fake.requests.length).toBe(before.completions);
  });
});

describe("OpenAI-compatible provider: the stream", () => {
  it("yields the deltas and the provider's token usage", async () => {
    fake.behave({ kind: "stream", fragments: ["Two ", "condos ", "in Miami 🏡", ": MLS300002."], usage: 321 });
    const result = await run(provider, requestFor("condos in Miami"));
    expect(result.events).toEqual<EngineEvent[]>([
      { type: "text", text: "Two " },
      { type: "text", text: "condos " },
      { type: "text", text: "in Miami 🏡" },
      { type: "text", text: ": MLS300002." },
      { type: "done", totalToken: 321, noAnswer: false },
    ]);
  });

  it("counts tokens itself when the provider sends no usage", async () => {
    fake.behave({ kind: "stream", fragments: ["Hello!"], usage: null });
    const result = await run(provider, requestFor("hi"));
    expect(result.done?.totalToken).toBeGreaterThan(20);
  });

  it("marks an empty answer as no answer", async () => {
    fake.behave({ kind: "stream", fragments: [] });
    expect((await run(provider, requestFor("hi"))).done).toEqual({ type: "done", totalToken: 42, noAnswer: true });
  });
});

describe("OpenAI-compatible provider: failures", () => {
  it("maps an HTTP error to 502 with the provider's message, never the key", async () => {
    const message = `Incorrect API key provided: ${API_KEY}.`;
    fake.behave({ kind: "status", status: 401, body: { error: { message, type: "invalid_request_error" } } });
    const error = await failure(provider);
    expect(error.status).toBe(502);
    expect(error.message).toBe(`LLM provider ${fake.baseUrl} answered HTTP 401: Incorrect API key provided: ***.`);
  });

  it("maps a 500 with Ollama's error shape", async () => {
    fake.behave({ kind: "status", status: 500, body: { error: "model 'llama9' not found" } });
    const error = await failure(provider);
    expect(error.status).toBe(502);
    expect(error.message).toContain("answered HTTP 500: model 'llama9' not found");
  });

  it("maps the provider's gateway timeout to 504", async () => {
    fake.behave({ kind: "status", status: 504, body: "upstream timed out" });
    expect((await failure(provider)).status).toBe(504);
  });

  it("maps an error event in the stream to 502", async () => {
    fake.behave({ kind: "error-event", after: 1, message: "The server had an error while processing your request." });
    const error = await failure(provider);
    expect(error.status).toBe(502);
    expect(error.message).toContain("failed mid-answer: The server had an error");
  });

  it("maps a cut connection to 502", async () => {
    fake.behave({ kind: "cut", after: 2 });
    const error = await failure(provider);
    expect(error.status).toBe(502);
    expect(error.message).toContain(`LLM provider ${fake.baseUrl}`);
  });

  it("maps a stream that ends without finishing to 502", async () => {
    fake.behave({ kind: "stream", fragments: ["half"], usage: null, finish: false });
    expect((await failure(provider)).message).toContain("ended the stream before the answer was complete");
  });

  it("maps a provider that does not answer in time to 504", async () => {
    fake.behave({ kind: "hang" });
    const impatient = new OpenAiProvider({ baseUrl: fake.baseUrl, model: "m", timeoutMs: 150 });
    const error = await failure(impatient);
    expect(error.status).toBe(504);
    expect(error.message).toBe(`LLM provider ${fake.baseUrl} did not answer within 150 ms`);
  });

  it("maps an unreachable provider to 502 without credentials in the message", async () => {
    const unreachable = new OpenAiProvider({
      baseUrl: "http://user:hunter2@127.0.0.1:9/v1",
      apiKey: API_KEY,
      model: "m",
    });
    const error = await failure(unreachable);
    expect(error.status).toBe(502);
    expect(error.message).toContain("LLM provider http://127.0.0.1:9/v1 could not be reached");
    expect(error.message).not.toContain("hunter2");
    expect(error.message).not.toContain(API_KEY);
  });
});

describe("OpenAI-compatible provider: cancelling", () => {
  it("closes the upstream request when the signal fires and yields nothing more", async () => {
    fake.behave({ kind: "stall", after: 2 });
    const controller = new AbortController();
    const events: EngineEvent[] = [];
    for await (const event of provider.answer(requestFor("hi", { signal: controller.signal }))) {
      events.push(event);
      controller.abort();
    }
    expect(events).toEqual([{ type: "text", text: "one " }]);
    await lastRequest().clientGone;
  });

  it("closes the upstream request when the consumer stops reading", async () => {
    fake.behave({ kind: "stall", after: 3 });
    for await (const event of provider.answer(requestFor("hi"))) {
      expect(event).toEqual({ type: "text", text: "one " });
      break;
    }
    await lastRequest().clientGone;
  });

  it("sends nothing when the signal fired before", async () => {
    const controller = new AbortController();
    controller.abort();
    const before = fake.requests.length;
    expect((await run(provider, requestFor("hi", { signal: controller.signal }))).events).toEqual([]);
    expect(fake.requests.length).toBe(before);
  });
});
