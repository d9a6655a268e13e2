/**
 * A larger fuzz run of the self-hosted chatbot API than `test/fuzz/api.fuzz.test.ts`: N requests mutated from
 * valid ones, spread over every operation, 8 at a time, checked as the test checks them (no 5xx, always the
 * envelope, a 4xx naming the field or the problem). Prints the answers per status and per operation, the
 * throughput and every problem found.
 *
 * Run: `npx tsx bench/fuzz-api.ts [N=20000] [sqlite|postgres] [seed]`.
 */

import { performance } from "node:perf_hooks";
import { Agent } from "undici";
import { fuzzRequests, problemOf, sendAll } from "../test/fuzz/api-fuzz.js";
import { type FuzzBackend, startApiFuzzTarget } from "../test/fuzz/api-fuzz-target.js";

const count = Number(process.argv[2] ?? 20_000);
const backend = (process.argv[3] ?? "sqlite") as FuzzBackend;
const seed = Number(process.argv[4] ?? 20_260_412);
const CONCURRENCY = 8;

// One fresh upload URL per upload request (every 17th request is one), so that valid PUTs keep succeeding.
const target = await startApiFuzzTarget(backend, Math.ceil(count / 17));
const dispatcher = new Agent({ connections: CONCURRENCY });
try {
  const requests = fuzzRequests(target.fixtures, count, seed);
  const started = performance.now();
  const answers = await sendAll(target.url, requests, dispatcher, CONCURRENCY);
  const seconds = (performance.now() - started) / 1000;

  const byStatus = new Map<number, number>();
  const byOperation = new Map<string, Map<number, number>>();
  const problems: string[] = [];
  requests.forEach((request, index) => {
    const answer = answers[index];
    if (!answer) return;
    byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    const statuses = byOperation.get(request.operation) ?? new Map<number, number>();
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    byOperation.set(request.operation, statuses);
    const problem = problemOf(request, answer);
    if (problem) problems.push(`${request.operation} (${request.mutation}) → ${answer.status}: ${problem}`);
  });

  const sorted = (map: Map<number, number>) =>
    [...map.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ");
  console.log(`chatbot API fuzz on ${backend}, seed ${seed}: ${count} requests, ${CONCURRENCY} at a time`);
  console.log(`  ${seconds.toFixed(1)} s, ${Math.round(count / seconds)} requests/s`);
  console.log(`  by status: ${sorted(byStatus)}`);
  for (const [operation, statuses] of byOperation) console.log(`    ${operation.padEnd(18)} ${sorted(statuses)}`);
  console.log(`  problems: ${problems.length}; unexpected failures logged: ${target.loggedErrors.length}`);
  for (const problem of problems.slice(0, 20)) console.log(`    ${problem}`);
  for (const line of target.loggedErrors.slice(0, 5)) console.log(`    logged: ${line.slice(0, 300)}`);
  process.exitCode = problems.length > 0 || target.loggedErrors.length > 0 ? 1 : 0;
} finally {
  await dispatcher.close();
  await target.close();
}
