/**
 * How long the test suite takes, tier by tier, as a newcomer runs it: the type check, the lint, the unit tier
 * (`npm run test:unit`: in process, in parallel) and the end-to-end tier (emulators, Redis and PostgreSQL, child
 * processes, Chromium), each as its own command, K times in a row; the whole of them is what `npm test` takes. Prints
 * each run's seconds, whether every test passed, and the medians against the targets (unit ≤ 90 s, the whole ≤ 10
 * min). With `--e2e-workers N` the end-to-end tier runs on N workers (default: vitest.config.ts's).
 * Run: npx tsx bench/test-tiers.ts [--runs K] [--only unit|e2e] [--e2e-workers N]   (not a test; needs Redis and
 * PostgreSQL running for the end-to-end tier to run whole)
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TARGETS = { unit: 90, whole: 600 };

const { values } = parseArgs({
  options: { runs: { type: "string", default: "1" }, only: { type: "string" }, "e2e-workers": { type: "string" } },
});
const runs = Number(values.runs);
const workers = values["e2e-workers"] ? ["--maxWorkers", values["e2e-workers"]] : [];
const steps: { name: string; command: string[] }[] = [
  { name: "typecheck", command: ["npm", "run", "--silent", "typecheck"] },
  { name: "lint", command: ["npm", "run", "--silent", "lint"] },
  { name: "unit", command: ["npx", "vitest", "run", "--project", "unit"] },
  { name: "e2e", command: ["npx", "vitest", "run", "--project", "e2e", ...workers] },
].filter((step) => !values.only || step.name === values.only);

/** Runs `command` in the checkout with CHATBRIDGE_REQUIRE_SERVICES=1; its seconds, and the tests' tally. */
async function timed(command: string[]): Promise<{ seconds: number; ok: boolean; tally: string }> {
  const started = performance.now();
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, CHATBRIDGE_REQUIRE_SERVICES: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const seconds = (performance.now() - started) / 1000;
  let tally = "";
  if (command.includes("vitest")) {
    const report = JSON.parse(readFileSync(path.join(ROOT, "reports/vitest.json"), "utf8")) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
    };
    tally = `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`;
  }
  return { seconds, ok: code === 0, tally };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const figures = new Map<string, number[]>();
let failures = 0;
for (let run = 1; run <= runs; run++) {
  let whole = 0;
  for (const step of steps) {
    const { seconds, ok, tally } = await timed(step.command);
    whole += seconds;
    figures.set(step.name, [...(figures.get(step.name) ?? []), seconds]);
    if (!ok) failures++;
    console.log(
      `run ${run} ${step.name.padEnd(9)} ${seconds.toFixed(1).padStart(6)} s ${ok ? "ok" : "FAILED"} ${tally}`,
    );
  }
  figures.set("whole", [...(figures.get("whole") ?? []), whole]);
  console.log(`run ${run} whole     ${whole.toFixed(1).padStart(6)} s`);
}
for (const [name, seconds] of figures) {
  const target = TARGETS[name as keyof typeof TARGETS];
  const m = median(seconds);
  const verdict =
    target === undefined
      ? ""
      : ` — ${(m / target).toFixed(2)} of the ${target} s target: ${m <= target ? "PASS" : "FAIL"}`;
  console.log(`median ${name.padEnd(9)} ${m.toFixed(1).padStart(6)} s over ${seconds.length} run(s)${verdict}`);
}
console.log(`${failures === 0 ? "every run passed" : `${failures} step(s) failed`}`);
process.exitCode = failures === 0 ? 0 : 1;
