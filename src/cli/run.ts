import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../config/config.js";
import { ask } from "./ask.js";
import { handoff } from "./handoff.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { reportFailure } from "./report-failure.js";
import { start } from "./start.js";
import { MAIN_HELP } from "./usage.js";

/** The package version, found by walking up from this file (it runs from src/ under tsx, dist/src/ when built). */
function version(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) return String(JSON.parse(readFileSync(file, "utf8")).version);
  }
  return "unknown";
}

/**
 * Runs the CLI with `argv` (without node and script) and returns the exit code. The commands that need the API
 * server's modules (`api`, `keys`) or the QR codes (`links`) are imported when they run, so that `start` with a remote
 * chatbot API never loads them (src/common/lazy-parts.ts).
 */
export async function run(argv: string[], io: CommandIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(`${MAIN_HELP}\n`);
        return command === undefined ? EXIT.usage : EXIT.ok;
      case "--version":
      case "-v":
        io.stdout.write(`${version()}\n`);
        return EXIT.ok;
      case "ask":
        return await ask(args, io);
      case "start":
        return await start(args, io);
      case "api":
        return await (await import("./api.js")).api(args, io);
      case "keys":
        return await (await import("./keys.js")).keys(args, io);
      case "handoff":
        return await handoff(args, io);
      case "links":
        return await (await import("./links.js")).links(args, io);
      default:
        throw new UsageError(
          command.startsWith("-")
            ? `unknown option ${command.split("=")[0]} for "chatbridge"`
            : `unknown command ${JSON.stringify(command)}`,
          MAIN_HELP,
        );
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) io.stderr.write(`chatbridge: ${problem}\n`);
      return EXIT.usage;
    }
    // Commands parse their arguments with parseCommandArgs, which words every argument problem as a UsageError.
    if (error instanceof UsageError) {
      io.stderr.write(`chatbridge: ${error.message}\n`);
      if (error.usage) io.stderr.write(`\n${error.usage}\n`);
      return EXIT.usage;
    }
    return reportFailure(error, io);
  }
}
