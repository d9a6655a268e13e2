import { loadConfig } from "../config/config.js";
import { ensureDemo } from "../server/demo.js";
import { createEngines } from "../server/engine/registry.js";
import { ChatbotService } from "../server/services/chatbots.js";
import { openApiStore } from "../server/store/open-store.js";
import { createWorkspace } from "../server/workspace-keys.js";
import { parseCommandArgs } from "./command-args.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { KEYS_HELP } from "./usage.js";

/**
 * `chatbridge keys create [--name N]` prints `{"secretKey","sessionKey"}` of a new workspace as one JSON line
 * (a contract other programs parse); `chatbridge keys demo` prints the demo's keys and serial number.
 */
export async function keys(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: "keys",
    usage: KEYS_HELP,
    positionals: true,
    options: { name: { type: "string" } },
  });
  const [action, extra] = positionals;
  if (values.help) {
    io.stdout.write(`${KEYS_HELP}\n`);
    return EXIT.ok;
  }
  if (action !== "create" && action !== "demo") {
    const problem =
      action === undefined ? "missing action (create or demo)" : `unknown action ${JSON.stringify(action)}`;
    throw new UsageError(`${problem} for "chatbridge keys"`, KEYS_HELP);
  }
  if (extra !== undefined)
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)} for "chatbridge keys ${action}"`, KEYS_HELP);
  if (action === "demo" && values.name !== undefined)
    throw new UsageError('option --name is only for "chatbridge keys create"', KEYS_HELP);
  const config = loadConfig(io.env, { envFile: io.envFile });
  const store = await openApiStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    if (action === "create") {
      const name = values.name?.trim() || `workspace-${new Date().toISOString()}`;
      const workspace = await createWorkspace(store, name);
      io.stdout.write(`${JSON.stringify({ secretKey: workspace.secretKey, sessionKey: workspace.sessionKey })}\n`);
    } else {
      const { workspace, chatbot } = await ensureDemo(
        store,
        new ChatbotService(store, createEngines(config.llm)),
        config.chatbotApi,
      );
      io.stdout.write(
        `${JSON.stringify({ secretKey: workspace.secretKey, sessionKey: workspace.sessionKey, serialNumber: chatbot.serialNumber })}\n`,
      );
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
