#!/usr/bin/env node
import { EventEmitter } from "node:events";
import { keepWebAssemblyOnBaselineCompiler } from "./app/wasm-baseline.js";
import { run } from "./cli/run.js";

// Before any request: undici compiles its WebAssembly HTTP parser on the first connection.
keepWebAssemblyOnBaselineCompiler();

/** The `chatbridge` command: hands the arguments to the CLI and turns signals into events it can act on. */
const signals = new EventEmitter();
let interrupted = false;
process.on("SIGINT", () => {
  // The first Ctrl-C stops what is running (a streamed answer, a server); a second one leaves at once.
  if (interrupted || signals.listenerCount("interrupt") === 0) process.exit(130);
  interrupted = true;
  signals.emit("interrupt");
});
/**
 * How long a stop asked for by SIGTERM may take before the process ends anyway (a supervisor's SIGTERM must always
 * end it): the command's grace for answers under way (it emits "grace" with it), and 10 s more to close.
 */
let terminateDeadlineMs = 20_000;
signals.on("grace", (graceMs: number) => {
  terminateDeadlineMs = graceMs + 10_000;
});
process.on("SIGTERM", () => {
  // Nothing is listening while the program starts up or a command runs: end at once.
  if (signals.listenerCount("terminate") === 0) process.exit(143);
  signals.emit("terminate");
  setTimeout(() => {
    process.stderr.write(`chatbridge: still stopping ${terminateDeadlineMs / 1000} s after SIGTERM; exiting now\n`);
    process.exit(143);
  }, terminateDeadlineMs).unref();
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
