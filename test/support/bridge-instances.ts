import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch } from "undici";
import { type CliProcess, spawnCli } from "./cli-process.js";
import { RecordingProxy } from "./recording-proxy.js";
import { freePort, until } from "./waiting.js";

/** What `chatbridge start` prints once its channels are set up and it answers (the banner's first line). */
const BANNER = "chatbridge is running on";
/** Starting from the sources under tsx, several at once on a small machine, takes a while. */
const START_WITHIN_MS = 60_000;
/** Connections per instance for webhook posts: Telegram's default `max_connections` (setWebhook). */
const CONNECTIONS_PER_INSTANCE = 40;

/** The roles of `chatbridge start --role`. */
export type InstanceRole = "all" | "web" | "worker";

/** How {@link BridgeInstances.start} starts its processes. */
export interface BridgeInstancesOptions {
  /**
   * Variables every process gets: the store, the chatbot API, Telegram's token and webhook secret, timings. PORT is
   * each instance's own; DATA_DIR too, unless given here (then every instance, and every restart, shares it).
   */
  env: Record<string, string>;
  /** One entry per instance: its role. */
  roles: InstanceRole[];
  /**
   * The Telegram Bot API the processes call (the emulator's URL). Each process reaches it through a
   * {@link RecordingProxy} of its own, so a test can tell which process made which call.
   */
  telegramRoot: string;
  /**
   * False: the processes call {@link telegramRoot} directly, without the proxy and its extra hop (for benchmarks,
   * which count calls at the emulator); a run's {@link InstanceRun.telegram} then throws when read. Default true.
   */
  recordTelegram?: boolean;
  /** Arguments for node before the program (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Runs the build in dist/ (as `npm start` does) instead of the sources under tsx; build it first. */
  built?: boolean;
}

/** One run of an instance: the process and the proxy its Telegram calls went through. */
export interface InstanceRun {
  process: CliProcess;
  /** Throws when the instances were started with `recordTelegram: false`. */
  readonly telegram: RecordingProxy;
}

/** The answer to a webhook post: its status and JSON body, or the network error when no process answered. */
export type PostOutcome = { status: number; body: unknown } | { status: 0; error: unknown };

/**
 * One `chatbridge start` instance on a port of its own, which keeps its port, data directory and environment when it
 * is killed and started again — as a container restarted by its supervisor would.
 */
export class BridgeInstance {
  readonly name: string;
  readonly role: InstanceRole;
  readonly port: number;
  /** Every process this instance ran, the current one last. */
  readonly runs: InstanceRun[] = [];
  readonly #env: Record<string, string>;
  readonly #telegramRoot: string;
  readonly #nodeArgs: string[];
  readonly #built: boolean;
  readonly #recordTelegram: boolean;
  /** The proxies of the runs, to close. */
  readonly #proxies: RecordingProxy[] = [];
  #agent = new Agent({ connections: CONNECTIONS_PER_INSTANCE });

  constructor(
    name: string,
    role: InstanceRole,
    port: number,
    env: Record<string, string>,
    options: BridgeInstancesOptions,
  ) {
    this.name = name;
    this.role = role;
    this.port = port;
    this.#env = env;
    this.#telegramRoot = options.telegramRoot;
    this.#nodeArgs = options.nodeArgs ?? [];
    this.#built = options.built ?? false;
    this.#recordTelegram = options.recordTelegram ?? true;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The current (or last) run. */
  get current(): InstanceRun {
    const run = this.runs.at(-1);
    if (!run) throw new Error(`${this.name} never started`);
    return run;
  }

  /** True while the current process runs. */
  get running(): boolean {
    const run = this.runs.at(-1);
    return run !== undefined && run.process.child.exitCode === null && run.process.child.signalCode === null;
  }

  /** Starts a process (the first, or the next after a kill) and resolves once its banner is printed. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is running already`);
    const telegram = this.#recordTelegram ? await RecordingProxy.start(this.#telegramRoot) : undefined;
    if (telegram) this.#proxies.push(telegram);
    const args = ["start", "--role", this.role];
    const root = telegram?.url ?? this.#telegramRoot;
    const cli = spawnCli(args, { ...this.#env, TELEGRAM_API_ROOT: root }, {}, this.#nodeArgs, this.#built);
    const name = this.name;
    this.runs.push({
      process: cli,
      get telegram(): RecordingProxy {
        if (!telegram) throw new Error(`${name} calls Telegram directly (recordTelegram: false): no proxy recorded it`);
        return telegram;
      },
    });
    const ended = () => cli.child.exitCode !== null || cli.child.signalCode !== null;
    const state = await until(
      () => (cli.stdout().includes(BANNER) ? "ready" : ended() ? "exited" : undefined),
      START_WITHIN_MS,
    ).catch(() => "late");
    if (state !== "ready") {
      const how =
        state === "exited"
          ? `exited (${cli.child.signalCode ?? cli.child.exitCode}) before it was ready`
          : `did not start within ${START_WITHIN_MS} ms`;
      throw new Error(`${this.name} ${how}:\n${cli.stdout()}${cli.stderr()}`);
    }
  }

  /** `kill -9`: the process ends at once, holding whatever it held. */
  async kill(): Promise<void> {
    const { process: cli } = this.current;
    cli.child.kill("SIGKILL");
    await cli.exited;
  }

  /** SIGTERM; resolves when the process has ended, with how it ended. */
  async terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const { process: cli } = this.current;
    cli.child.kill("SIGTERM");
    return cli.exited;
  }

  /**
   * Posts webhooks over `connections` at once from now on, as Telegram does with the `max_connections` the bridge
   * registered (setWebhook).
   */
  async useConnections(connections: number): Promise<void> {
    const previous = this.#agent;
    this.#agent = new Agent({ connections });
    await previous.close();
  }

  /** POSTs a Telegram update to this instance's webhook with the secret header, as Telegram (or a balancer) does. */
  async postTelegram(update: object): Promise<PostOutcome> {
    try {
      const response = await fetch(`${this.url}/webhooks/telegram`, {
        dispatcher: this.#agent,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-telegram-bot-api-secret-token": this.#env.TELEGRAM_WEBHOOK_SECRET ?? "",
        },
        body: JSON.stringify(update),
      });
      const text = await response.text();
      return { status: response.status, body: parseJson(text) };
    } catch (error) {
      return { status: 0, error };
    }
  }

  /** The sum of a metric's samples (all its labels) on the current process's /metrics. */
  async metric(name: string): Promise<number> {
    return (await this.metrics([name]))[0] as number;
  }

  /** The sums of several metrics' samples, in the order of `names`, from one scrape of /metrics. */
  async metrics(names: readonly string[]): Promise<number[]> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const sums = names.map(() => 0);
    for (const line of text.split("\n")) {
      const [sample, value] = line.split(" ");
      names.forEach((name, k) => {
        if (sample === name || sample?.startsWith(`${name}{`)) sums[k] = (sums[k] as number) + Number(value);
      });
    }
    return sums;
  }

  /** Ends the current process if it runs, and closes the proxies. */
  async close(): Promise<void> {
    if (this.running) await this.kill();
    await Promise.all(this.#proxies.map((proxy) => proxy.close()));
    await this.#agent.close();
  }
}

/**
 * Several `chatbridge start` processes (the real executable, from the sources) sharing one store, for tests and
 * benchmarks that kill, stop and restart them: each on its own port, each calling Telegram through its own recording
 * proxy (or directly, with `recordTelegram: false`).
 */
export class BridgeInstances {
  readonly instances: BridgeInstance[];

  private constructor(instances: BridgeInstance[]) {
    this.instances = instances;
  }

  /** Starts one process per role, all at once, and resolves when every one printed its banner. */
  static async start(options: BridgeInstancesOptions): Promise<BridgeInstances> {
    const instances = await Promise.all(
      options.roles.map(async (role, index) => {
        const port = await freePort();
        const env = {
          LOG_LEVEL: "warn",
          DATA_DIR: mkdtempSync(path.join(tmpdir(), `chatbridge-instance-${index}-`)),
          ...options.env,
          PORT: String(port),
        };
        return new BridgeInstance(`instance ${index} (${role})`, role, port, env, options);
      }),
    );
    const group = new BridgeInstances(instances);
    try {
      await Promise.all(instances.map((instance) => instance.start()));
    } catch (error) {
      await group.close();
      throw error;
    }
    return group;
  }

  /** The instance at `index`. */
  at(index: number): BridgeInstance {
    const instance = this.instances[index];
    if (!instance) throw new Error(`no instance ${index}`);
    return instance;
  }

  /** The instances that take webhooks (role web or all). */
  get receivers(): BridgeInstance[] {
    return this.instances.filter((instance) => instance.role !== "worker");
  }

  /**
   * POSTs `update` to the receiving instance `first` (an index into {@link receivers}, taken modulo their number); as
   * a load balancer would, a post that no process answered, or that was refused with a 5xx, goes to the next
   * running receiver, until one took it or `withinMs` passed. Resolves with the accepting answer and who gave it.
   */
  async deliver(
    update: object,
    first: number,
    withinMs = 30_000,
  ): Promise<{ outcome: PostOutcome; by: BridgeInstance }> {
    const receivers = this.receivers;
    const deadline = Date.now() + withinMs;
    for (let attempt = 0; ; attempt++) {
      const instance = receivers[(first + attempt) % receivers.length] as BridgeInstance;
      const outcome = instance.running ? await instance.postTelegram(update) : undefined;
      if (outcome && outcome.status > 0 && outcome.status < 500) return { outcome, by: instance };
      if (Date.now() > deadline) {
        throw new Error(`no instance took update ${JSON.stringify(update)}: ${describe(outcome)}`);
      }
      if (attempt % receivers.length === receivers.length - 1) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Kills every process still running and closes the proxies. */
  async close(): Promise<void> {
    await Promise.all(this.instances.map((instance) => instance.close()));
  }
}

/** A Telegram update with a text message from a user in their private chat with the bot. */
export function privateText(updateId: number, chatId: number, text: string): object {
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: { id: chatId, is_bot: false, first_name: "Ana" },
      text,
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(outcome: PostOutcome | undefined): string {
  if (!outcome) return "no instance running";
  return "error" in outcome ? String(outcome.error) : `${outcome.status} ${JSON.stringify(outcome.body)}`;
}
