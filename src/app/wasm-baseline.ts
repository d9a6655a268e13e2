import { setFlagsFromString } from "node:v8";

/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) for the rest of the process. The WebAssembly a bridge runs
 * from boot is undici's HTTP parser (llhttp); V8's dynamic tiering soon optimizes its hot parsing function with
 * TurboFan on a worker thread, whose register allocator left about 10 MiB in that thread's malloc arena in a third
 * of boots: 92-93 MiB resident instead of 82-85 (found with strace and perf; docs/benchmarks.md, boot memory). The
 * cost, measured: no change in CPU per answer at N = 1,000 on Telegram (9.9-11.3 against 10.0 ms), and Opus voice
 * notes decode at 380 instead of 508 seconds of audio per CPU second (MP3 223 against 239). V8 has no per-module
 * choice, so the media codecs' WebAssembly stays on the baseline compiler too. Called by the `chatbridge` command
 * only, before anything compiles WebAssembly; a program using chatbridge as a library keeps its own V8 settings.
 */
export function keepWebAssemblyOnBaselineCompiler(): void {
  setFlagsFromString("--liftoff-only");
}
