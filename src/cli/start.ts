import { once } from "node:events";
import { startBridge } from "../bridge-app.js";
import { loadConfig } from "../config.js";
import { createLogger } from "../log.js";
import { describeServer } from "../mail/smtp-mailer.js";
import { masked } from "./api.js";
import { type CommandIo, EXIT } from "./io.js";
import { START_HELP } from "./usage.js";

/** How long answers under way may take to finish after SIGTERM before they are ended. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `chatbridge start` (what `npm start` runs): the bridge with its channels, the web chat and, unless
 * CHATBOT_API_URL is set, the embedded chatbot API. Prints a banner naming each channel's state; SIGTERM or
 * Ctrl-C stops it cleanly.
 */
export async function start(args: string[], io: CommandIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(`${START_HELP}\n`);
    return EXIT.ok;
  }
  const config = loadConfig(io.env, { envFile: io.envFile });
  const log = createLogger(config.logLevel);
  const running = await startBridge(config, log);
  const lines = [`chatbridge is running on ${running.url.replace("127.0.0.1", "0.0.0.0")}`];
  if (running.embedded) {
    const { workspace, chatbot, created } = running.embedded.demo;
    const show = created ? (key: string) => key : masked;
    lines.push(
      `  chatbot API: embedded at ${running.url}/chat · chatbot ${chatbot.serialNumber} · secret key ${show(workspace.secretKey)} · session key ${show(workspace.sessionKey)}`,
    );
  } else {
    lines.push(`  chatbot API: ${config.chatbotApi.url} · chatbot ${config.chatbotApi.serialNumber}`);
  }
  for (const channel of running.channels) {
    lines.push(
      `  ${channel.enabled ? "✓" : "✗"} ${channel.name}: ${channel.enabled ? "enabled" : "disabled"} — ${channel.detail}`,
    );
  }
  const { smtpUrl, from } = config.mail;
  const handoffTo = config.bridge.handoff.email ?? "each chatbot's TalkToHumanEmail";
  lines.push(
    smtpUrl
      ? `  ✓ talk to a human: mails through ${describeServer(smtpUrl)} from ${from} to ${handoffTo}`
      : "  ✗ talk to a human: off — set SMTP_URL and MAIL_FROM to mail requests for a person",
  );
  const webChat = running.channels.find((channel) => channel.name === "web chat");
  if (webChat) lines.push(`  Open the web chat: ${webChat.detail}`);
  io.stdout.write(`${lines.join("\n")}\n`);
  await Promise.race([once(io.signals, "terminate"), once(io.signals, "interrupt")]);
  log.info("stopping: finishing the answers under way");
  await running.close(SHUTDOWN_GRACE_MS);
  return EXIT.ok;
}
