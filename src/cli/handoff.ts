import type { HandoffView } from "../admin/admin-routes.js";
import { loadConfig } from "../config/config.js";
import { parseCommandArgs } from "./command-args.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { HANDOFF_HELP } from "./usage.js";

/**
 * `chatbridge handoff list` and `chatbridge handoff resume <conversation>`: the conversations handed to a person,
 * and giving one back to the bot. They ask the running chatbridge through its admin endpoints (ADMIN_TOKEN), so
 * the user is told the bot is back by the process that holds the conversation.
 */
export async function handoff(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: "handoff",
    usage: HANDOFF_HELP,
    positionals: true,
    options: { url: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (values.help) {
    io.stdout.write(`${HANDOFF_HELP}\n`);
    return EXIT.ok;
  }
  const [action, conversation] = positionals;
  if (
    !(action === "list" && positionals.length === 1) &&
    !(action === "resume" && conversation && positionals.length === 2)
  ) {
    throw new UsageError(`${handoffProblem(positionals)} for "chatbridge handoff"`, HANDOFF_HELP);
  }
  const config = loadConfig(io.env, { envFile: io.envFile });
  if (!config.adminToken) throw new UsageError("set ADMIN_TOKEN (the same as the running chatbridge's) to use handoff");
  const base = (values.url ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, "");
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${config.adminToken}`, "content-type": "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
  let response: Response;
  try {
    response =
      action === "list"
        ? await call("/admin/handoffs")
        : await call("/admin/handoffs/resume", { method: "POST", body: JSON.stringify({ conversation }) });
  } catch (error) {
    io.stderr.write(`chatbridge: cannot reach chatbridge at ${base} (${(error as Error).message}); is it running?\n`);
    return EXIT.failure;
  }
  const body = (await response.json().catch(() => ({}))) as {
    handoffs?: HandoffView[];
    resumed?: HandoffView;
    error?: string;
  };
  if (!response.ok) {
    const hint = response.status === 401 ? " (ADMIN_TOKEN differs from the running chatbridge's)" : "";
    const reason = response.status === 404 && !body.error ? "the admin endpoints are off: set ADMIN_TOKEN" : body.error;
    io.stderr.write(`chatbridge: ${reason ?? `HTTP ${response.status}`}${hint}\n`);
    return EXIT.failure;
  }
  if (values.json) io.stdout.write(`${JSON.stringify(action === "list" ? body.handoffs : body.resumed)}\n`);
  else if (action === "list") io.stdout.write(listing(body.handoffs ?? []));
  else io.stdout.write(`${conversation} is back with the bot; the user was told.\n`);
  return EXIT.ok;
}

/** What is wrong with the words after `chatbridge handoff`, when they are neither `list` nor `resume <conversation>`. */
function handoffProblem([action, conversation, extra]: string[]): string {
  if (action === undefined) return "missing action (list or resume <conversation>)";
  if (action !== "list" && action !== "resume") return `unknown action ${JSON.stringify(action)}`;
  if (action === "resume" && !conversation) return "missing conversation after resume";
  return `unexpected argument ${JSON.stringify(action === "list" ? conversation : extra)}`;
}

/** One line per conversation: who, where, since when, until when, and waiting follow-ups. */
function listing(handoffs: HandoffView[]): string {
  if (handoffs.length === 0) return "No conversation is with a person.\n";
  return handoffs
    .map((handoff) => {
      const who = [handoff.user.name, handoff.user.handle].filter(Boolean).join(" ") || handoff.user.id;
      const waiting = handoff.waitingFollowUps > 0 ? ` · ${handoff.waitingFollowUps} message(s) not mailed yet` : "";
      return `${handoff.conversation}  ${who} on ${handoff.channel} · since ${handoff.requestedAt} · until ${handoff.until} · mailed to ${handoff.mailTo}${waiting}\n`;
    })
    .join("");
}
