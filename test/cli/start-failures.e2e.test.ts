import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliProcess, cliLines, spawnCli, unprivileged, unprivilegedUnavailable } from "../support/cli-process.js";
import { postgresForTests } from "../support/postgres.js";
import { redisForTests } from "../support/redis.js";
import { freePort } from "../support/waiting.js";

const postgres = await postgresForTests();
const redis = await redisForTests();
const redisServerInstalled = spawnSync("redis-server", ["--version"]).status === 0;
if (!redisServerInstalled) console.warn("skipping the password-protected Redis tests: redis-server is not installed");
const portSetting = "/proc/sys/net/ipv4/ip_unprivileged_port_start";
/** The first port any user may open (Linux; 1024 elsewhere). */
const unprivilegedPortsFrom = existsSync(portSetting) ? Number(readFileSync(portSetting, "utf8")) : 1024;
/** Why the tests run as user nobody cannot run here; they are skipped with it (.ci/run makes them run). */
const noUnprivileged = unprivilegedUnavailable();
if (noUnprivileged) console.warn(`skipping the tests run as an unprivileged user: ${noUnprivileged}`);

/** Each test starts a process of its own (a few seconds of loading TypeScript each): they run side by side. */
const concurrently = { concurrent: true, timeout: 40_000 };

/** A data folder of its own, which the unprivileged user may write to as well. */
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-start-"));
  chmodSync(dir, 0o777);
  return dir;
}

/** Runs `chatbridge start` with the variables given (a fresh DATA_DIR and a free PORT unless given) to its end. */
async function failedStart(env: Record<string, string>, runAs = {}) {
  const run = spawnCli(["start"], { PORT: String(await freePort()), DATA_DIR: dataDir(), ...env }, runAs);
  const { code, ms } = await run.exited;
  return { code, ms, stderr: run.stderr(), stdout: run.stdout() };
}

/**
 * The promise of issue 12: one `chatbridge:` line naming the variable, nothing else the CLI wrote, no stack trace,
 * and no banner.
 */
function expectOneLine(result: { stderr: string; stdout: string }, variable: string): string {
  const lines = cliLines(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`${variable}=`);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stdout).not.toContain("chatbridge is running");
  return lines[0] as string;
}

/** Waits until something listens on the loopback `port` (a server just spawned). */
async function acceptsConnections(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => socket.end(() => resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A TCP server that accepts connections and never answers: a firewall, a stuck server. */
async function silentServer(): Promise<{ port: number; connected: Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connectedNow: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    connectedNow = resolve;
  });
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    connectedNow();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as { port: number }).port,
    connected,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("chatbridge start: a port that cannot be opened", concurrently, () => {
  it("PORT in use: one line naming the port, exit 2", async () => {
    const holder = createServer().listen(0, "0.0.0.0");
    await once(holder, "listening");
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await failedStart({ PORT: String(port), STORE_URL: "memory://" });
      expect(result.code).toBe(2);
      expect(expectOneLine(result, "PORT")).toBe(
        `chatbridge: PORT=${port} is already in use by another program: stop that program, or set PORT to a free port.`,
      );
    } finally {
      holder.close();
    }
  });

  it("chatbridge api says the same", async () => {
    const holder = createServer().listen(0, "0.0.0.0");
    await once(holder, "listening");
    const port = (holder.address() as { port: number }).port;
    try {
      const run = spawnCli(["api"], { PORT: String(port), DATA_DIR: dataDir() });
      const { code } = await run.exited;
      expect(code).toBe(2);
      expect(expectOneLine({ stderr: run.stderr(), stdout: run.stdout() }, "PORT")).toContain("is already in use");
    } finally {
      holder.close();
    }
  });

  it.runIf(unprivilegedPortsFrom > 80 && !noUnprivileged)(
    "a privileged PORT for an unprivileged user: exit 2 with the way out",
    async () => {
      const result = await failedStart({ PORT: "80", STORE_URL: "memory://" }, unprivileged());
      expect(result.code).toBe(2);
      expect(expectOneLine(result, "PORT")).toMatch(
        /^chatbridge: PORT=80 is a privileged port \(below 1024\) that this user may not open: set PORT to 1024 or higher/,
      );
    },
  );
});

describe("chatbridge start: a DATA_DIR that cannot be used", concurrently, () => {
  it("a file: exit 2", async () => {
    const file = path.join(dataDir(), "not-a-folder");
    writeFileSync(file, "");
    const result = await failedStart({ DATA_DIR: file });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATA_DIR")).toBe(
      `chatbridge: DATA_DIR=${file} is a file, not a folder: set DATA_DIR to a folder chatbridge can write to.`,
    );
  });

  it("under a file: exit 2 naming the file", async () => {
    const file = path.join(dataDir(), "plain");
    writeFileSync(file, "");
    const result = await failedStart({ DATA_DIR: path.join(file, "data") });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATA_DIR")).toContain(`cannot be created because ${file} is a file`);
  });

  it.skipIf(noUnprivileged)("a folder this user may not write: exit 2", async () => {
    const dir = dataDir();
    chmodSync(dir, 0o555);
    const result = await failedStart({ DATA_DIR: dir }, unprivileged());
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATA_DIR")).toMatch(
      new RegExp(`^chatbridge: DATA_DIR=${dir} is not writable by this user \\(uid \\d+\\): give it write access`),
    );
  });

  it.skipIf(noUnprivileged)("a database file this user may not write: exit 2 naming the file", async () => {
    const dir = dataDir();
    const database = path.join(dir, "chatbridge.db");
    writeFileSync(database, "");
    chmodSync(database, 0o444);
    const result = await failedStart({ DATA_DIR: dir }, unprivileged());
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATA_DIR")).toContain(`holds ${database}, which this user (uid`);
  });

  it("/proc/chatbridge fails at once instead of spinning", async () => {
    const result = await failedStart({ DATA_DIR: "/proc/chatbridge" });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATA_DIR")).toBe(
      "chatbridge: DATA_DIR=/proc/chatbridge cannot be created: /proc does not take new folders (a special file system such as /proc or /sys): set DATA_DIR to a folder chatbridge can write to.",
    );
    // Most of it is loading the TypeScript (seconds on a busy machine); the spin it replaces lasted minutes.
    expect(result.ms).toBeLessThan(30_000);
  });
});

describe("chatbridge start: SIGTERM", concurrently, () => {
  it("ends the process while the start-up is still waiting for the database", async () => {
    const database = await silentServer();
    const run: CliProcess = spawnCli(["start"], {
      PORT: String(await freePort()),
      DATA_DIR: dataDir(),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${database.port}/test`,
    });
    try {
      await database.connected;
      const sent = Date.now();
      run.child.kill("SIGTERM");
      const { code } = await run.exited;
      expect(code).toBe(143);
      expect(Date.now() - sent).toBeLessThan(2_000);
    } finally {
      run.child.kill("SIGKILL");
      await database.close();
    }
  });
});

describe("chatbridge start: a DATABASE_URL PostgreSQL refuses", concurrently, () => {
  const port = postgres.available ? new URL(postgres.url).port || "5432" : "5432";

  it.runIf(postgres.available)("an unknown role: exit 2 with PostgreSQL's reason", async () => {
    const result = await failedStart({
      DATABASE_URL: `postgres://chatbridge_no_such_role:secret@127.0.0.1:${port}/test`,
    });
    expect(result.code).toBe(2);
    const line = expectOneLine(result, "DATABASE_URL");
    expect(line).toBe(
      `chatbridge: DATABASE_URL=postgres://chatbridge_no_such_role:***@127.0.0.1:${port}/test was refused: role "chatbridge_no_such_role" does not exist (28000): correct the user in DATABASE_URL, or let PostgreSQL accept it (CREATE ROLE … LOGIN, pg_hba.conf).`,
    );
    expect(result.stderr).not.toContain("secret");
  });

  it.runIf(postgres.available)("a database that does not exist: exit 2 with the command that creates it", async () => {
    const result = await failedStart({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/chatbridge_missing_db` });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "DATABASE_URL")).toContain(
      'names a database that does not exist: database "chatbridge_missing_db" does not exist (3D000): create it (createdb chatbridge_missing_db)',
    );
  });

  it("a server that is down: exit 1", async () => {
    const closed = await freePort();
    const result = await failedStart({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/test` });
    expect(result.code).toBe(1);
    expect(expectOneLine(result, "DATABASE_URL")).toBe(
      `chatbridge: DATABASE_URL=postgres://postgres@127.0.0.1:${closed}/test cannot be reached: connection refused: start PostgreSQL, or correct the host and port in DATABASE_URL.`,
    );
  });
});

describe("chatbridge start: a STORE_URL Redis refuses", concurrently, () => {
  it("a server that is down: exit 1 within seconds", async () => {
    const closed = await freePort();
    const result = await failedStart({ STORE_URL: `redis://127.0.0.1:${closed}` });
    expect(result.code).toBe(1);
    expect(expectOneLine(result, "STORE_URL")).toBe(
      `chatbridge: STORE_URL=redis://127.0.0.1:${closed} cannot be reached: connection refused: start Redis, or correct the host and port in STORE_URL.`,
    );
  });

  it("a server that accepts but never answers: exit 1 after the connect timeout", async () => {
    const silent = await silentServer();
    try {
      const run = spawnCli(["start"], {
        PORT: String(await freePort()),
        DATA_DIR: dataDir(),
        STORE_URL: `redis://127.0.0.1:${silent.port}`,
      });
      await silent.connected;
      const connected = Date.now();
      const { code } = await run.exited;
      expect(code).toBe(1);
      expect(expectOneLine({ stderr: run.stderr(), stdout: run.stdout() }, "STORE_URL")).toContain(
        "cannot be reached: no answer within 5 s",
      );
      expect(Date.now() - connected).toBeLessThan(8_000);
    } finally {
      await silent.close();
    }
  });

  it.runIf(redis.available)("a password for a Redis without one: exit 2, the password masked", async () => {
    const result = await failedStart({ STORE_URL: "redis://:wrong@127.0.0.1:6379" });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "STORE_URL")).toBe(
      "chatbridge: STORE_URL=redis://:***@127.0.0.1:6379 was refused: this Redis has no password set, but STORE_URL gives one (ERR AUTH): remove the password from STORE_URL, or set one on the server (requirepass).",
    );
    expect(result.stderr).not.toContain("wrong");
  });
});

/** A Redis of its own with a password (`requirepass`), when redis-server is installed. */
describe.runIf(redisServerInstalled)("chatbridge start: a Redis with a password", concurrently, () => {
  let port = 0;
  let server: ChildProcess | undefined;
  beforeAll(async () => {
    port = await freePort();
    server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--requirepass", "s3cret", "--save", ""],
      { stdio: "ignore" },
    );
    await acceptsConnections(port);
  });
  afterAll(() => {
    server?.kill();
  });

  it("no password: NOAUTH, exit 2", async () => {
    const result = await failedStart({ STORE_URL: `redis://127.0.0.1:${port}` });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "STORE_URL")).toBe(
      `chatbridge: STORE_URL=redis://127.0.0.1:${port} was refused: this Redis requires a password (NOAUTH): put it in STORE_URL as redis://:password@host:port.`,
    );
  });

  it("a wrong password: WRONGPASS, exit 2", async () => {
    const result = await failedStart({ STORE_URL: `redis://:guess@127.0.0.1:${port}` });
    expect(result.code).toBe(2);
    expect(expectOneLine(result, "STORE_URL")).toBe(
      `chatbridge: STORE_URL=redis://:***@127.0.0.1:${port} was refused: wrong user name or password (WRONGPASS): correct the credentials in STORE_URL.`,
    );
  });
});

describe("the unprivileged user of the tests above", concurrently, () => {
  it.skipIf(noUnprivileged)(
    "can use a folder it may write to, so the failures come from what each test changed",
    async () => {
      const run = spawnCli(["keys", "demo"], { DATA_DIR: dataDir() }, unprivileged());
      const { code } = await run.exited;
      expect(code, run.stderr()).toBe(0);
      expect(JSON.parse(run.stdout()).serialNumber).toMatch(/^[0-9a-f]{32}$/);
    },
  );
});
