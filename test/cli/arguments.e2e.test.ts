import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { API_HELP, ASK_HELP, HANDOFF_HELP, KEYS_HELP, MAIN_HELP, START_HELP } from "../../src/cli/usage.js";
import { terminal } from "../support/terminal.js";
import { freePort } from "../support/waiting.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../upstream/fake-chatbot-api.js";

/** An environment in which start, api and keys would really run (and not return), so only the arguments stop them. */
const runnable = async () => ({
  DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-args-")),
  PORT: String(await freePort()),
  STORE_URL: "memory://",
  LOG_LEVEL: "silent",
  ADMIN_TOKEN: "admin-token-for-tests",
});

/** Runs `argv` in-process; the exit code and what went to stdout and stderr. */
async function cli(argv: string[]) {
  const t = terminal(await runnable());
  const code = await run(argv, t.io);
  return { code, out: t.out(), err: t.err() };
}

const USAGES: Record<string, string> = {
  ask: ASK_HELP,
  start: START_HELP,
  api: API_HELP,
  keys: KEYS_HELP,
  handoff: HANDOFF_HELP,
};

describe("arguments a command does not take", () => {
  it.each(Object.keys(USAGES))(
    "chatbridge %s --bogus names the option and prints that command's usage, exit 2",
    async (command) => {
      const { code, out, err } = await cli([command, "--bogus"]);
      expect(code).toBe(2);
      expect(out).toBe("");
      expect(err.split("\n")[0]).toMatch(new RegExp(`^chatbridge: unknown option --bogus for "chatbridge ${command}"`));
      expect(err).toContain(`\n\n${USAGES[command]}\n`);
      expect(err).not.toContain("ERR_PARSE_ARGS");
      expect(err).not.toContain("Unknown option '--bogus'");
    },
  );

  it("chatbridge --bogus names the option and prints the main usage, exit 2", async () => {
    const { code, err } = await cli(["--bogus=1"]);
    expect(code).toBe(2);
    expect(err).toBe(`chatbridge: unknown option --bogus for "chatbridge"\n\n${MAIN_HELP}\n`);
  });

  it("an unknown command prints the main usage, exit 2", async () => {
    const { code, err } = await cli(["frobnicate"]);
    expect(code).toBe(2);
    expect(err).toBe(`chatbridge: unknown command "frobnicate"\n\n${MAIN_HELP}\n`);
  });

  it("start and api take no arguments at all, and do not start with one", async () => {
    for (const command of ["start", "api"]) {
      const { code, err } = await cli([command, "now"]);
      expect(code).toBe(2);
      expect(err).toBe(`chatbridge: unexpected argument "now" for "chatbridge ${command}"\n\n${USAGES[command]}\n`);
    }
  });

  it("names an unknown short option, also inside a group, and an option whose name is an object key", async () => {
    expect((await cli(["start", "-x"])).err).toMatch(/^chatbridge: unknown option -x for "chatbridge start"\n/);
    expect((await cli(["api", "-hx"])).err).toMatch(/^chatbridge: unknown option -x for "chatbridge api"\n/);
    const proto = await cli(["keys", "demo", "--constructor"]);
    expect(proto.code).toBe(2);
    expect(proto.err).toMatch(/^chatbridge: unknown option --constructor for "chatbridge keys"/);
  });

  it("says when an option misses its value or a flag is given one", async () => {
    const missing = await cli(["ask", "--session"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(
      /^chatbridge: option --session needs a value for "chatbridge ask"\n\nUsage: chatbridge ask/,
    );
    expect((await cli(["ask", "--serial", "--json", "hi"])).err).toMatch(
      /^chatbridge: option --serial needs a value for "chatbridge ask"\n/,
    );
    expect((await cli(["handoff", "list", "--url"])).err).toMatch(
      /^chatbridge: option --url needs a value for "chatbridge handoff"\n/,
    );
    const flag = await cli(["handoff", "list", "--json=yes"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/^chatbridge: option --json takes no value for "chatbridge handoff"\n/);
  });

  it("tells how to ask a question that starts with a dash", async () => {
    const { code, err } = await cli(["ask", "-5%", "homes?"]);
    expect(code).toBe(2);
    expect(err).toMatch(
      /^chatbridge: unknown option -5 for "chatbridge ask" \(put text that starts with "-" after --\)\n/,
    );
  });

  it("names a missing, unknown or extra action of keys and handoff", async () => {
    const cases: [string[], string][] = [
      [["keys"], 'missing action (create or demo) for "chatbridge keys"'],
      [["keys", "rotate"], 'unknown action "rotate" for "chatbridge keys"'],
      [["keys", "create", "agency"], 'unexpected argument "agency" for "chatbridge keys create"'],
      [["keys", "demo", "--name", "x"], 'option --name is only for "chatbridge keys create"'],
      [["handoff"], 'missing action (list or resume <conversation>) for "chatbridge handoff"'],
      [["handoff", "close", "x"], 'unknown action "close" for "chatbridge handoff"'],
      [["handoff", "resume"], 'missing conversation after resume for "chatbridge handoff"'],
      [["handoff", "resume", "a", "b"], 'unexpected argument "b" for "chatbridge handoff"'],
      [["handoff", "list", "all"], 'unexpected argument "all" for "chatbridge handoff"'],
    ];
    for (const [argv, message] of cases) {
      const { code, out, err } = await cli(argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(out).toBe("");
      expect(err).toBe(`chatbridge: ${message}\n\n${USAGES[argv[0] ?? ""]}\n`);
    }
  });

  it("still prints each command's help on stdout with exit 0", async () => {
    for (const [command, usage] of Object.entries(USAGES)) {
      const t = terminal(await runnable());
      expect(await run([command, "-h"], t.io)).toBe(0);
      expect(t.out()).toBe(`${usage}\n`);
      expect(t.err()).toBe("");
    }
  });
});

describe("arguments that fit", () => {
  let api: FakeChatbotApi;
  beforeAll(async () => {
    api = await FakeChatbotApi.start();
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 7 }));
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) => writeSlowly(res, [framings.sse(answerObjects(["Two."]))]));
  });
  afterAll(() => api.close());

  it("asks a question that starts with a dash when it comes after --, with the options before", async () => {
    const t = terminal({ CHATBOT_API_URL: api.url, CHATBOT_API_KEY: "sk-test", CHATBOT_SERIAL_NUMBER: "bot-1" });
    expect(await run(["ask", "--serial", "bot-2", "--", "-5%", "homes?"], t.io)).toBe(0);
    expect(t.out()).toBe("Two.\n");
    expect(api.requestsTo("/chat/Chatbot/GetSession")[0]?.body).toEqual({ serialNumber: "bot-2" });
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.body).toMatchObject({ content: "-5% homes?" });
  });
});

describe("the chatbridge executable", () => {
  it("exits 2 on an unknown option of start, with chatbridge's message and start's usage on stderr", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "start", "--bogus"], {
      env: { ...process.env, ...(await runnable()) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (exit) => resolve(exit)));
    expect(err).toBe(`chatbridge: unknown option --bogus for "chatbridge start"\n\n${START_HELP}\n`);
    expect(out).toBe("");
    expect(code).toBe(2);
  }, 30_000);
});
