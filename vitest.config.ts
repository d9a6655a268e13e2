import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 15_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line that CI reads.
    reporters: ["default", "json"],
    outputFile: { json: "reports/vitest.json" },
  },
});
