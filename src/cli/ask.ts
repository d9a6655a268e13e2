import { createInterface } from "node:readline/promises";
import { type AnswerFinal, ChatbotApiError, ChatbotClient } from "../client/index.js";
import { loadConfig } from "../config/config.js";
import { reachChatbotApi } from "./chatbot-api.js";
import { parseCommandArgs } from "./command-args.js";
import { explainApiError } from "./explain.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { ASK_HELP } from "./usage.js";

interface AskOptions {
  json: boolean;
  session: number | undefined;
  serial: string | undefined;
  question: string | undefined;
}

function parse(args: string[]): AskOptions | "help" {
  const { values, positionals } = parseCommandArgs(args, {
    command: "ask",
    usage: ASK_HELP,
    positionals: true,
    options: { json: { type: "boolean", default: false }, session: { type: "string" }, serial: { type: "string" } },
  });
  if (values.help) return "help";
  let session: number | undefined;
  if (values.session !== undefined) {
    session = Number(values.session);
    if (!Number.isSafeInteger(session) || session <= 0) {
      throw new UsageError(
        `--session must be a positive whole number, got ${JSON.stringify(values.session)}`,
        ASK_HELP,
      );
    }
  }
  const question = positionals.join(" ").trim();
  return { json: values.json, session, serial: values.serial, question: question || undefined };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8").trim();
}

/**
 * `chatbridge ask`: a terminal chat with the configured chatbot. Streams each answer to stdout, reports
 * token usage on stderr, or prints one JSON object per answer with `--json`.
 */
export async function ask(args: string[], io: CommandIo): Promise<number> {
  const options = parse(args);
  if (options === "help") {
    io.stdout.write(`${ASK_HELP}\n`);
    return EXIT.ok;
  }
  const config = loadConfig(io.env, { envFile: io.envFile });
  const upstream = await reachChatbotApi(config, options.serial);
  const client = new ChatbotClient({
    baseUrl: upstream.baseUrl,
    apiKey: upstream.apiKey,
    sessionKey: upstream.sessionKey,
    timeoutMs: config.chatbotApi.timeoutMs,
    uploadConfirmPath: config.chatbotApi.uploadConfirmPath,
  });
  const serialNumber = upstream.serialNumber;
  try {
    const sessionId = options.session ?? (await client.createSession(serialNumber));
    if (options.question !== undefined) return await answerOnce(client, sessionId, options.question, options, io);
    if (!io.stdin.isTTY) {
      const question = await readAll(io.stdin);
      if (!question) throw new UsageError("no question: pass one as an argument or on stdin");
      return await answerOnce(client, sessionId, question, options, io);
    }
    return await converse(client, sessionId, options, io);
  } catch (error) {
    if (!(error instanceof ChatbotApiError)) throw error;
    io.stderr.write(`chatbridge: ${explainApiError(error)}\n`);
    return EXIT.failure;
  } finally {
    await client.close();
    await upstream.close();
  }
}

/** Asks one question; Ctrl-C cancels the upstream generation. */
async function answerOnce(
  client: ChatbotClient,
  sessionId: number,
  question: string,
  options: AskOptions,
  io: CommandIo,
): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  io.signals.on("interrupt", stop);
  let final: AnswerFinal | undefined;
  let streamed = false;
  try {
    for await (const event of client.askStream({ sessionId, content: question }, { signal: controller.signal })) {
      if (event.type === "final") final = event;
      else if (!options.json) {
        io.stdout.write(event.content);
        streamed = true;
      }
    }
  } catch (error) {
    if (streamed) io.stdout.write("\n");
    if (error instanceof ChatbotApiError && error.kind === "aborted") {
      io.stderr.write("(stopped)\n");
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    io.signals.off("interrupt", stop);
  }
  if (!final) return EXIT.failure;
  if (options.json) {
    const { questionId, answerId, answer, totalToken, noAnswer } = final;
    io.stdout.write(`${JSON.stringify({ sessionId, questionId, answerId, answer, totalToken, noAnswer })}\n`);
  } else {
    if (streamed) io.stdout.write("\n");
    const ids = [
      `session ${sessionId}`,
      final.questionId === undefined ? "" : `question ${final.questionId}`,
      `answer ${final.answerId}`,
    ];
    io.stderr.write(
      `— ${ids.filter(Boolean).join(" · ")} · ${final.totalToken} tokens${final.noAnswer ? " · no answer" : ""}\n`,
    );
  }
  return EXIT.ok;
}

/** The interactive chat: one session, one question per line, until Ctrl-D or Ctrl-C at the prompt. */
async function converse(client: ChatbotClient, sessionId: number, options: AskOptions, io: CommandIo): Promise<number> {
  io.stderr.write(`Chatting in session ${sessionId}. Ctrl-C stops an answer; Ctrl-D quits.\n`);
  const prompt = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  let quit = false;
  prompt.on("close", () => {
    quit = true;
  });
  // readline swallows Ctrl-C; pass it on so a running answer stops, and quit when none runs.
  let answering = false;
  prompt.on("SIGINT", () => {
    if (answering) io.signals.emit("interrupt");
    else prompt.close();
  });
  try {
    while (!quit) {
      const question = (await prompt.question("you> ").catch(() => "")).trim();
      if (quit) break;
      if (!question) continue;
      answering = true;
      try {
        await answerOnce(client, sessionId, question, options, io);
      } catch (error) {
        if (!(error instanceof ChatbotApiError)) throw error;
        io.stderr.write(`chatbridge: ${explainApiError(error)}\n`);
      } finally {
        answering = false;
      }
    }
  } finally {
    prompt.close();
  }
  return EXIT.ok;
}
