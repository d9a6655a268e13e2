/**
 * The resident memory of `chatbridge start` at boot, as `npm start` runs it (`node dist/src/main.js start`, built
 * first with `npm run build`), in two configurations: Telegram only (webhook mode, against the Telegram emulator) with
 * a remote chatbot API (CHATBOT_API_URL, a scripted chatbot), and Telegram only with the embedded chatbot API (no
 * CHATBOT_API_URL). Slack and WhatsApp are off, the store is the default SQLite file in a fresh DATA_DIR. VmRSS
 * (/proc/<pid>/status) is read twice: at rest, two seconds after /readyz first answers 200, as an operator would read
 * it (the process has collected its startup garbage itself by then, see src/app/startup-garbage.ts); then after full
 * collections forced through the inspector (the process runs with it on loopback; its idle thread, under 1 MiB, is in
 * both figures): five, a second apart (the first readings still hold pages just freed), the last one reported. Also prints the heap in use and which parts loaded on first use the process reports loaded
 * (`chatbridge_module_loaded` in /metrics, see src/common/lazy-parts.ts). Figures are MiB (1,048,576 bytes).
 * Run: npm run build && npx tsx bench/boot-memory.ts [--runs K]   (default 1 run per configuration; not a test)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fetch } from "undici";
import { TelegramEmulator } from "../test/emulators/telegram.js";
import { freePort, holds } from "../test/support/waiting.js";
import { ScriptedChatbot } from "../test/upstream/scripted-chatbot.js";
import { collectGarbage } from "./support/inspector-gc.js";
import { residentBytes } from "./support/proc-stats.js";

const MAIN = fileURLToPath(new URL("../dist/src/main.js", import.meta.url));
const TOKEN = "123456789:AAbench-token-of-the-emulator_01";
const READY_WITHIN_MS = 60_000;
const MIB = 1024 * 1024;
/** Full collections, a second apart, before the resident memory is read. */
const SETTLING_READINGS = 5;

const { values } = parseArgs({ options: { runs: { type: "string", default: "1" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs takes a whole number from 1, not ${JSON.stringify(values.runs)}`);
  process.exit(2);
}
if (!existsSync(MAIN)) {
  console.error(`${MAIN} is missing: run npm run build first (the benchmark measures what npm start runs)`);
  process.exit(2);
}

/** What one boot measured: the resident memory at rest and after forced collections, the heap, the lazy parts loaded. */
interface Boot {
  restMiB: number;
  rssMiB: number;
  heapMiB: number;
  loaded: string[];
}

/** Starts `node dist/src/main.js start` with `env`, waits for /readyz, and measures it at rest. */
async function boot(env: Record<string, string>): Promise<Boot> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-boot-"));
  const port = await freePort();
  const inspectorPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectorPort}`, MAIN, "start"], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), PORT: String(port), DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await holds(async () => {
      if (child.exitCode !== null) throw new Error(`chatbridge exited (${child.exitCode}):\n${stderr}`);
      const response = await fetch(`${base}/readyz`).catch(() => undefined);
      return response?.status === 200;
    }, READY_WITHIN_MS);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rest = residentBytes(child.pid as number);
    // The first readings after a forced collection still hold pages just freed; five, a second apart, settle.
    let rss = 0;
    for (let reading = 0; reading < SETTLING_READINGS; reading++) {
      await collectGarbage(inspectorPort);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rss = residentBytes(child.pid as number);
    }
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const heap = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1] ?? Number.NaN);
    const loaded = [...metrics.matchAll(/^chatbridge_module_loaded\{module="([^"]+)"\} 1$/gm)].map((m) => m[1] ?? "");
    return { restMiB: rest / MIB, rssMiB: rss / MIB, heapMiB: heap / MIB, loaded };
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const telegram = await TelegramEmulator.start({ token: TOKEN });
const chatbot = await ScriptedChatbot.start();
const telegramOnly = {
  LOG_LEVEL: "warn",
  PUBLIC_URL: "https://bridge.example.test",
  TELEGRAM_BOT_TOKEN: TOKEN,
  TELEGRAM_WEBHOOK_SECRET: "bench-secret",
  TELEGRAM_API_ROOT: telegram.url,
};
const configurations: { name: string; env: Record<string, string> }[] = [
  {
    name: "Telegram only, remote chatbot API (CHATBOT_API_URL)",
    env: { ...telegramOnly, CHATBOT_API_URL: chatbot.url, CHATBOT_API_KEY: "sk-bench", CHATBOT_SERIAL_NUMBER: "bench" },
  },
  { name: "Telegram only, embedded chatbot API", env: telegramOnly },
];
try {
  for (const { name, env } of configurations) {
    const rest: number[] = [];
    const rss: number[] = [];
    for (let run = 1; run <= runs; run++) {
      const { restMiB, rssMiB, heapMiB, loaded } = await boot(env);
      rest.push(restMiB);
      rss.push(rssMiB);
      const parts = loaded.length > 0 ? loaded.join(", ") : "none";
      console.log(
        `${name}${runs > 1 ? ` (run ${run})` : ""}: ${restMiB.toFixed(1)} MiB RSS at rest (${mb(restMiB)}), ${rssMiB.toFixed(1)} MiB after forced collections, ${heapMiB.toFixed(1)} MiB heap; lazy parts loaded: ${parts}`,
      );
    }
    // Native memory a background thread's allocator keeps after startup varies from run to run by up to 10 MiB.
    if (runs > 1) {
      const within = rest.filter((value) => value * MIB <= 90e6).length;
      console.log(
        `  ${name}: median ${median(rest).toFixed(1)} MiB (${mb(median(rest))}) at rest, ${median(rss).toFixed(1)} MiB after forced collections, over ${runs} runs; ${within} of ${runs} at rest within 90 MB`,
      );
    }
  }
} finally {
  await telegram.close();
  await chatbot.close();
}

/** MiB as MB (10^6 bytes), the unit of the 90 MB goal. */
function mb(mib: number): string {
  return `${((mib * MIB) / 1e6).toFixed(1)} MB`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
