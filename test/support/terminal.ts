import { EventEmitter } from "node:events";
import { PassThrough, Readable } from "node:stream";
import type { CommandIo } from "../../src/cli/io.js";

/** A terminal for running CLI commands in-process: captured stdout/stderr, optional piped stdin. */
export function terminal(env: NodeJS.ProcessEnv, stdinText?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const stdin = Object.assign(Readable.from(stdinText === undefined ? [] : [stdinText]), { isTTY: false });
  const io: CommandIo = { stdin, stdout, stderr, env, envFile: undefined, signals: new EventEmitter() };
  return { io, out: () => out, err: () => err };
}
