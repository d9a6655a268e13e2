import { defineConfig } from "vitest/config";

/**
 * Two tiers. `unit`: in process, with no server, socket or child process (test/support/unit-guard.ts refuses them),
 * files run in parallel; `npm run test:unit` runs it alone, in seconds. `e2e` (files named `*.e2e.test.ts`): the
 * platforms' emulators, Redis and PostgreSQL, child processes killed with -9, Chromium.
 */
export default defineConfig({
  test: {
    testTimeout: 15_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line that CI reads.
    reporters: ["default", "json"],
    outputFile: { json: "reports/vitest.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.e2e.test.ts"],
          setupFiles: ["test/support/unit-guard.ts"],
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.e2e.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          // Two files at a time on a 2-core machine: the chatbridge processes under test yield the CPU to the
          // emulators (test/support/cli-process.ts), and tests wait on events rather than on wall-clock margins.
          maxWorkers: 2,
        },
      },
    ],
  },
});
