import { describe, expect, it } from "vitest";
import { reportFailure } from "../../src/cli/report-failure.js";
import { StartupError } from "../../src/common/startup-error.js";
import { terminal } from "../support/terminal.js";

describe("the CLI's report of a failure", () => {
  it("a StartupError is its line: exit 2 for a setting that cannot work, 1 for a service that does not answer", () => {
    const t = terminal({});
    expect(reportFailure(new StartupError("PORT", "PORT=80 is taken: set PORT.", "configuration"), t.io)).toBe(2);
    expect(reportFailure(new StartupError("STORE_URL", "STORE_URL=redis://x is down.", "unavailable"), t.io)).toBe(1);
    expect(t.err()).toBe("chatbridge: PORT=80 is taken: set PORT.\nchatbridge: STORE_URL=redis://x is down.\n");
  });

  it("anything else is one line without the stack, exit 1", () => {
    const t = terminal({});
    expect(reportFailure(new Error("disk on fire\nsecond line"), t.io)).toBe(1);
    expect(t.err()).toBe("chatbridge: unexpected failure: disk on fire (LOG_LEVEL=debug shows where it happened)\n");
  });

  it("with LOG_LEVEL=debug, the stack as well", () => {
    const t = terminal({ LOG_LEVEL: "debug" });
    expect(reportFailure(new Error("disk on fire"), t.io)).toBe(1);
    expect(t.err()).toMatch(/^chatbridge: unexpected failure: Error: disk on fire\n\s+at /);
  });
});
