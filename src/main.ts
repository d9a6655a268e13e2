#!/usr/bin/env node
import { EventEmitter } from "node:events";
import { run } from "./cli/run.js";

/** The `chatbridge` command: hands the arguments to the CLI and turns signals into events it can act on. */
const signals = new EventEmitter();
let interrupted = false;
process.on("SIGINT", () => {
  // The first Ctrl-C stops what is running (a streamed answer, a server); a second one leaves at once.
  if (interrupted || signals.listenerCount("interrupt") === 0) process.exit(130);
  interrupted = true;
  signals.emit("interrupt");
});
process.on("SIGTERM", () => {
  if (signals.listenerCount("terminate") === 0) process.exit(143);
  signals.emit("terminate");
});

// A last safety net: a stray rejection is reported, never allowed to bring the bridge down.
process.on("unhandledRejection", (reason) => {
  process.stderr.write(`chatbridge: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}\n`);
});

process.exitCode = await run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  envFile: ".env",
  signals,
});
