import { once } from "node:events";
import { createLogger } from "../common/log.js";
import { loadConfig } from "../config/config.js";
import { createSmtpMailer } from "../mail/smtp-mailer.js";
import { openEmbeddedApi, serveApi, shutdownApi } from "../server/embedded-api.js";
import { parseCommandArgs } from "./command-args.js";
import { type CommandIo, EXIT } from "./io.js";
import { masked } from "./masked-key.js";
import { API_HELP } from "./usage.js";

/**
 * `chatbridge api`: the self-hosted chatbot API alone on PORT, until SIGTERM/SIGINT. The demo's keys are
 * printed in full only when the demo is created; later starts show them masked (`chatbridge keys demo`
 * prints them again).
 */
export async function api(args: string[], io: CommandIo): Promise<number> {
  if (parseCommandArgs(args, { command: "api", usage: API_HELP }).values.help) {
    io.stdout.write(`${API_HELP}\n`);
    return EXIT.ok;
  }
  const config = loadConfig(io.env, { envFile: io.envFile });
  const log = createLogger(config.logLevel);
  const { smtpUrl, from } = config.mail;
  // With a mail server the chatbots' daily digests go out (EmailForDailyChatLogs, EmailForDailyLeads).
  const mailer = smtpUrl && from ? createSmtpMailer({ smtpUrl, from }) : undefined;
  const embedded = await openEmbeddedApi(config, log, { mailer });
  const { server, url } = await serveApi(embedded, { port: config.port });
  const { workspace, chatbot, created } = embedded.demo;
  const show = created ? (key: string) => key : masked;
  io.stdout.write(
    [
      `chatbridge api: the chatbot API listens on ${url.replace("127.0.0.1", "0.0.0.0")}/chat (data in ${config.databaseUrl ? "PostgreSQL" : config.dataDir})`,
      `  ${created ? "created the demo" : "demo"}: chatbot ${chatbot.serialNumber} · secret key ${show(workspace.secretKey)} · session key ${show(workspace.sessionKey)}`,
      ...(created ? [] : ["  (chatbridge keys demo prints the keys in full)"]),
      "",
    ].join("\n"),
  );
  await Promise.race([once(io.signals, "terminate"), once(io.signals, "interrupt")]);
  log.info("stopping: finishing in-flight answers");
  await shutdownApi(server, embedded);
  mailer?.close();
  return EXIT.ok;
}
