import type { Server } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { type EmbeddedApi, openEmbeddedApi, serveApi, shutdownApi } from "../../../src/server/embedded-api.js";
import { wav } from "../../support/media-fixtures.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { FakeOpenAi } from "../../upstream/fake-openai.js";

/**
 * The self-hosted API as `chatbridge api` starts it, configured with LLM_TRANSCRIBE_MODEL against a fake
 * OpenAI-compatible provider: the setting reaches the provider, voice questions are transcribed, and the
 * transcript stays in the session.
 */

const KEY = "sk-voice-secret-789";
const logs: string[] = [];
let fake: FakeOpenAi;
let dataDir: string;
let api: EmbeddedApi;
let server: Server;
let url: string;
let client: ChatbotClient;

beforeAll(async () => {
  fake = await FakeOpenAi.start();
  dataDir = tempDataDir();
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LLM_BASE_URL: fake.baseUrl,
      LLM_API_KEY: KEY,
      LLM_MODEL: "gpt-4o-mini",
      LLM_TRANSCRIBE_MODEL: "whisper-1",
    },
    { envFile: undefined },
  );
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  api = await openEmbeddedApi(config, createLogger("debug", { pretty: false, destination }));
  ({ server, url } = await serveApi(api, { port: 0, host: "127.0.0.1" }));
  client = new ChatbotClient({
    baseUrl: url,
    apiKey: api.demo.workspace.secretKey,
    sessionKey: api.demo.workspace.sessionKey,
    timeoutMs: 10_000,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  await client.editChatbot(api.demo.chatbot.serialNumber, { Model: "2" });
}, 60_000);

afterAll(async () => {
  await client?.close();
  if (server) await shutdownApi(server, api, 0);
  await fake?.close();
  removeDataDir(dataDir);
});

/** The conversation of the last completion request, without its system prompt. */
function userTurns() {
  const messages = (fake.requests.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((message) => message.role !== "system");
}

describe("voice questions with LLM_TRANSCRIBE_MODEL", () => {
  it("transcribes the uploaded WAV, answers what was said and keeps it in the session's history", async () => {
    const recording = wav(12 * 8000);
    const fileId = await client.uploadFile({ fileName: "voice.wav", bytes: recording });
    const sessionId = await client.createSession(api.demo.chatbot.serialNumber);
    fake.transcribeAs({ kind: "text", text: "Three bedroom homes in Austin" });
    fake.behave({ kind: "stream", fragments: ["Two homes ", "match."] });

    const answer = await client.ask({ sessionId, content: "", chatAskType: "Audio", fileIds: [fileId] });

    expect(answer.content).toBe("Two homes match.");
    const upload = fake.transcriptions.at(-1);
    expect(upload?.fields.model).toBe("whisper-1");
    expect(upload?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(upload?.file?.bytes.equals(recording)).toBe(true);
    const heard = "[Voice message] Three bedroom homes in Austin";
    expect(userTurns()).toEqual([{ role: "user", content: heard }]);

    fake.behave({ kind: "stream", fragments: ["One has a pool."] });
    await client.ask({ sessionId, content: "Any with a pool?" });
    expect(userTurns()).toEqual([
      { role: "user", content: heard },
      { role: "assistant", content: "Two homes match." },
      { role: "user", content: "Any with a pool?" },
    ]);
    const [question] = await api.store.messages.recent(sessionId, 10);
    expect(question).toMatchObject({ role: "User", askType: "Audio", fileIds: [fileId], content: heard });
  });

  it("fails a voice question with 502 when the transcription fails, the key neither in the answer nor the log", async () => {
    const fileId = await client.uploadFile({ fileName: "voice.wav", bytes: wav(8000) });
    const sessionID = await client.createSession(api.demo.chatbot.serialNumber);
    fake.transcribeAs({ kind: "status", status: 401, body: { error: { message: `Incorrect API key: ${KEY}` } } });
    const completions = fake.requests.length;
    const message = `LLM provider ${fake.baseUrl} (audio transcription) answered HTTP 401: Incorrect API key: ***`;
    const ask = (stream: boolean) =>
      fetch(`${url}/chat/Chat/ClientAsk`, {
        method: "POST",
        headers: { authorization: api.demo.workspace.secretKey, "content-type": "application/json" },
        body: JSON.stringify({ sessionID, content: "", chatAskType: "Audio", fileIds: [fileId], stream }),
      });

    const plain = await ask(false);
    expect(plain.status).toBe(502);
    expect(await plain.json()).toMatchObject({ Success: false, Code: 502, Message: message });
    const streamed = await (await ask(true)).text();
    expect(streamed).toContain(JSON.stringify(message));
    expect(streamed).not.toContain(KEY);

    expect(fake.requests.length).toBe(completions);
    expect(logs.join("")).toContain("(audio transcription) answered HTTP 401");
    expect(logs.join("")).not.toContain(KEY);
  });
});
