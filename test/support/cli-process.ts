import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { setPriority, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The niceness of the processes under test: lower than the test process that holds the emulators. */
const CHILD_PRIORITY = 10;

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
/** What `npm run build` makes of it, and `npm start` runs. */
const BUILT_MAIN = fileURLToPath(new URL("../../dist/src/main.js", import.meta.url));
/** tsx's loader by path, so the command runs from any working directory. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** The `chatbridge` executable running in a child process, with what it printed so far. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Its exit code (null when a signal ended it) and how long it ran. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Who the process runs as: the test's own user, or an unprivileged one (see {@link unprivileged}). */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/**
 * Starts the real `chatbridge` (src/main.ts under tsx, or with `built` the build in dist/ as `npm start` runs it)
 * with `args` and only the variables of `env` (plus PATH and HOME), in a fresh empty working directory so that no
 * `.env` file of the developer is read; `nodeArgs` go to node before the program (e.g. --cpu-prof for a benchmark).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  runAs: RunAs = {},
  nodeArgs: string[] = [],
  built = false,
): CliProcess {
  const cwd = mkdtempSync(path.join(tmpdir(), "chatbridge-cwd-"));
  chmodSync(cwd, 0o755);
  const started = Date.now();
  const program = built ? [BUILT_MAIN] : ["--import", TSX, MAIN];
  const child = spawn(process.execPath, [...nodeArgs, ...program, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...runAs,
  });
  // The platforms' emulators run in the test's own process, which is where their limits are counted: the chatbridge
  // under test yields the CPU to them, so that on a busy machine (the other test worker) an emulator handles each
  // call when the bridge made it, not in a burst when it gets the CPU back — as a platform's servers, which our load
  // does not slow, would count them.
  if (child.pid !== undefined) setPriority(child.pid, CHILD_PRIORITY);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, ms: Date.now() - started }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Runs a process as the user `nobody` when the tests run as root, whose permission checks would otherwise pass
 * everywhere (a read-only folder, a privileged port); as anyone else, as that user.
 */
export function unprivileged(): RunAs {
  return process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
}

/**
 * Why the tests that run as {@link unprivileged} cannot run here, or undefined when they can: as root they run as
 * `nobody`, who must be able to reach the checkout's files (a checkout under a private folder, such as the 0700
 * folders `mktemp -d` makes, is out of its reach).
 */
export function unprivilegedUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (let dir = path.dirname(MAIN); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      return `user nobody cannot enter ${dir}, which holds the checkout: make it (and its parents) o+x to run these tests`;
    }
    if (dir === path.dirname(dir)) return undefined;
  }
}

/** The lines of stderr that the CLI wrote itself (`chatbridge: …`), without the JSON log lines. */
export function cliLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("chatbridge:"));
}
