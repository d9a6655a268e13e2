import { once } from "node:events";
import { startBridge } from "../app/bridge-app.js";
import { BRIDGE_ROLES, type BridgeRole, roleWarning } from "../app/bridge-role.js";
import { collectStartupGarbage } from "../app/startup-garbage.js";
import { createLogger } from "../common/log.js";
import { loadConfig } from "../config/config.js";
import { configWarnings } from "../config/config-warnings.js";
import { describeServer } from "../mail/smtp-mailer.js";
import { parseCommandArgs } from "./command-args.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { masked } from "./masked-key.js";
import { START_HELP } from "./usage.js";

/** The banner's line per role: what this process does. */
const ROLE_LINES: Record<BridgeRole, string> = {
  all: "role all: takes the platforms' events and answers them",
  web: "role web: takes the platforms' events and records them; processes with --role worker (or all) answer them",
  worker: "role worker: answers the events that processes with --role web (or all) take; no webhooks here",
};

/**
 * `chatbridge start` (what `npm start` runs): the bridge with its channels, the web chat and, unless
 * CHATBOT_API_URL is set, the embedded chatbot API. `--role web|worker|all` splits that work between processes
 * sharing the store. Prints a banner naming the role and each channel's state; SIGTERM or Ctrl-C stops it cleanly.
 */
export async function start(args: string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(args, {
    command: "start",
    usage: START_HELP,
    options: { role: { type: "string", default: "all" } },
  });
  if (values.help) {
    io.stdout.write(`${START_HELP}\n`);
    return EXIT.ok;
  }
  const role = BRIDGE_ROLES.find((known) => known === values.role);
  if (!role) {
    throw new UsageError(
      `unknown role ${JSON.stringify(values.role)} for "chatbridge start" (use --role web, worker or all)`,
      START_HELP,
    );
  }
  const config = loadConfig(io.env, { envFile: io.envFile });
  const log = createLogger(config.logLevel);
  io.signals.emit("grace", config.shutdownGraceMs);
  const running = await startBridge(config, log, { role });
  const lines = [`chatbridge is running on ${running.url.replace("127.0.0.1", "0.0.0.0")}`, `  ${ROLE_LINES[role]}`];
  const retrying = `retrying every ${running.upstreamRetryMs / 1000} s`;
  for (const { target, outcome } of running.upstream) {
    const bots = config.bots.length > 0 ? ` (bots ${target.botIds.join(", ")})` : "";
    let where = `${target.baseUrl} · chatbot ${target.serialNumber}`;
    if (target.embedded && running.embedded) {
      const { workspace, created } = running.embedded.demo;
      const show = created ? (key: string) => key : masked;
      // The demo's keys are shown when the bot uses them (not a key of its own from BRIDGE_CONFIG).
      const keys =
        target.apiKey === workspace.secretKey
          ? ` · secret key ${show(workspace.secretKey)} · session key ${show(workspace.sessionKey)}`
          : "";
      where = `embedded at ${target.baseUrl}/chat · chatbot ${target.serialNumber}${keys}`;
    }
    lines.push(
      outcome.ok
        ? `  ✓ chatbot API: ${where}${bots}`
        : `  ✗ chatbot API: ${where}${bots} — ${outcome.problem}; ${outcome.fix} (${retrying})`,
    );
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
  const warnings = [...configWarnings(config), roleWarning(role, config.bridge.storeUrl, config.dataDir) ?? []].flat();
  for (const warning of warnings) lines.push(`  ! ${warning}`);
  if (role !== "worker") {
    const webChat = running.channels.find((channel) => channel.name === "web chat");
    if (webChat) lines.push(`  Open the web chat: ${webChat.detail}`);
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  // Listening for the stop first: one asked for during the collection must not be missed.
  const stopAsked = Promise.race([once(io.signals, "terminate"), once(io.signals, "interrupt")]);
  await collectStartupGarbage();
  await stopAsked;
  log.info("stopping: finishing the answers under way, then handing the rest over");
  await running.close(config.shutdownGraceMs);
  return EXIT.ok;
}
