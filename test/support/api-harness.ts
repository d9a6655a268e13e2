import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import pino from "pino";
import { afterAll, beforeAll, expect } from "vitest";
import type { ListingInput } from "../../src/api/types.js";
import { ChatbotClient } from "../../src/client/index.js";
import { type ApiRouter, createApiRouter } from "../../src/server/api-router.js";
import type { Workspace } from "../../src/server/domain.js";
import { createEngines } from "../../src/server/engine/registry.js";
import type { AnswerEngine } from "../../src/server/engine/types.js";
import type { EngineCatalog } from "../../src/server/services/engine-catalog.js";
import type { ApiStore } from "../../src/server/store/api-store.js";
import { openApiStore } from "../../src/server/store/open-store.js";
import { createWorkspace } from "../../src/server/workspace-keys.js";
import { dropSchema, freshSchemaName, postgresForTests, TEST_POSTGRES_URL } from "./postgres.js";
import { removeDataDir, tempDataDir } from "./sqlite.js";

/**
 * A real HTTP server of the self-hosted chatbot API on 127.0.0.1:<free port>, over a fresh store (SQLite in
 * a temp dir, or PostgreSQL in a schema of its own), with two workspaces that each own one chatbot created
 * over HTTP by `Add`. Tests drive it with {@link ApiHarness.call} (raw HTTP) or the project's own client.
 */

export type Backend = "sqlite" | "postgres";

/** The backends the conformance suites run on: PostgreSQL only when reachable (see postgres.ts for CI). */
export async function availableBackends(): Promise<Backend[]> {
  const postgres = await postgresForTests();
  return postgres.available ? ["sqlite", "postgres"] : ["sqlite"];
}

/** The server's clock: real time plus an offset that tests move forward (and back with reset). */
export class TestClock {
  offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}

/** A workspace with its keys, its chatbot, and ready-made credential headers. */
export interface Tenant {
  workspace: Workspace;
  secretKey: string;
  sessionKey: string;
  serialNumber: string;
  /** `{ authorization: secretKey }` */
  secret: Record<string, string>;
  /** `{ "chatrobot-sessionkey": sessionKey }` */
  session: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests index into response bodies freely
  body: any;
}

export interface CallOptions {
  method?: string;
}

export interface ApiHarness {
  backend: Backend;
  /** Base URL, e.g. http://127.0.0.1:41234 (operations live under /chat). */
  url: string;
  store: ApiStore;
  clock: TestClock;
  /** PostgreSQL: the schema the store's tables live in, for a second server on the same database. */
  schema: string | undefined;
  a: Tenant;
  b: Tenant;
  /**
   * POSTs to `path` (relative to the base URL): an object body is sent as JSON, a string body as it is,
   * undefined as no body. Content-Type is application/json unless `headers` says otherwise.
   */
  call(path: string, body?: unknown, headers?: Record<string, string>, options?: CallOptions): Promise<ApiResponse>;
  /** The project's client with the tenant's keys. */
  client(tenant: Tenant): ChatbotClient;
  /** A new chatbot of the tenant (Add over HTTP), then Edit with `settings` when given; its serial number. */
  addChatbot(tenant: Tenant, settings?: Record<string, unknown>): Promise<string>;
  /** A new session (GetSession over HTTP). */
  openSession(tenant: Tenant, serialNumber?: string): Promise<number>;
  close(): Promise<void>;
}

const silent = pino({ level: "silent" });

/**
 * A model key that only the harness knows (ModelList does not show it; Edit accepts it): an engine that
 * says "Part one. Part two. ", then waits up to {@link SLOW_HOLD_MS} or until the client goes away, then
 * finishes with "Part three.". It makes "the client left mid-stream" deterministic, which the embedded
 * engine (it answers within milliseconds) cannot.
 */
export const SLOW_MODEL_KEY = "test-slow";
export const SLOW_HOLD_MS = 3_000;

const slowEngine: AnswerEngine = {
  models: [{ key: SLOW_MODEL_KEY, name: "test: slow fragments", available: true }],
  async *answer(request) {
    yield { type: "text", text: "Part one. " };
    yield { type: "text", text: "Part two. " };
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SLOW_HOLD_MS);
      request.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (request.signal.aborted) return;
    yield { type: "text", text: "Part three." };
    yield { type: "done", totalToken: 7, noAnswer: false };
  },
};

function withSlowModel(engines: EngineCatalog): EngineCatalog {
  return {
    models: () => engines.models(),
    defaultModelKey: engines.defaultModelKey,
    engineFor: (key) => (key === SLOW_MODEL_KEY ? slowEngine : engines.engineFor(key)),
  };
}

/** Choices of a harness's server. */
export interface HarnessOptions {
  /** Time between two heartbeats of an idle listing change feed (the server's default otherwise). */
  feedHeartbeatMs?: number;
}

export async function startApiHarness(backend: Backend, options: HarnessOptions = {}): Promise<ApiHarness> {
  const dataDir = tempDataDir();
  const schema = backend === "postgres" ? freshSchemaName() : undefined;
  let url = "";
  if (backend === "postgres") {
    const postgres = await postgresForTests();
    if (!postgres.available) throw new Error(postgres.reason);
    url = postgres.url;
  }
  // One clock for the services and the store's timestamps, so limits compare times from one source.
  const clock = new TestClock();
  const store = await openApiStore(
    schema
      ? { databaseUrl: url, dataDir, schema, now: clock.now }
      : { databaseUrl: undefined, dataDir, now: clock.now },
  );
  const engines = withSlowModel(createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined }));
  const app = express();
  app.disable("x-powered-by");
  app.use("/chat", createApiRouter({ store, engines, dataDir, log: silent, now: clock.now, ...options }));
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: ChatbotClient[] = [];

  const call: ApiHarness["call"] = async (path, body, headers = {}, options = {}) => {
    const init: RequestInit = { method: options.method ?? "POST", headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
      const hasType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
      if (!hasType) (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    let parsed: unknown;
    if (/json/i.test(response.headers.get("content-type") ?? "")) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, text, body: parsed };
  };

  const tenant = async (name: string): Promise<Tenant> => {
    const workspace = await createWorkspace(store, name);
    const secret = { authorization: workspace.secretKey };
    const added = await call("/chat/Chatbot/Add", { timeZone: "America/New_York", type: 0 }, secret);
    if (added.status !== 200) throw new Error(`Add failed: ${added.text}`);
    return {
      workspace,
      secretKey: workspace.secretKey,
      sessionKey: workspace.sessionKey,
      serialNumber: added.body.Data,
      secret,
      session: { "chatrobot-sessionkey": workspace.sessionKey },
    };
  };

  try {
    const a = await tenant("conformance-a");
    const b = await tenant("conformance-b");
    return {
      backend,
      url: base,
      store,
      clock,
      schema,
      a,
      b,
      call,
      client(t) {
        const client = new ChatbotClient({
          baseUrl: base,
          apiKey: t.secretKey,
          sessionKey: t.sessionKey,
          timeoutMs: 10_000,
          retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
        });
        clients.push(client);
        return client;
      },
      async addChatbot(t, settings) {
        const added = await call("/chat/Chatbot/Add", { timeZone: "America/New_York", type: 0 }, t.secret);
        expect(added.status, added.text).toBe(200);
        const serialNumber = added.body.Data as string;
        if (settings) {
          const edited = await call("/chat/Chatbot/Edit", { serialNumber, ...settings }, t.secret);
          expect(edited.status, edited.text).toBe(200);
        }
        return serialNumber;
      },
      async openSession(t, serialNumber = t.serialNumber) {
        const opened = await call("/chat/Chatbot/GetSession", { serialNumber }, t.secret);
        expect(opened.status, opened.text).toBe(200);
        return opened.body.Data.SessionID as number;
      },
      async close() {
        await Promise.all(clients.map((client) => client.close()));
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await store.close();
        removeDataDir(dataDir);
        if (schema) await dropSchema(schema);
      },
    };
  } catch (error) {
    server.closeAllConnections();
    server.close();
    await store.close();
    removeDataDir(dataDir);
    if (schema) await dropSchema(schema);
    throw error;
  }
}

/** Another server instance of the API on a harness's database. */
export interface OtherInstance {
  url: string;
  router: ApiRouter;
  close(): Promise<void>;
}

/**
 * Another server instance on the harness's database, as a second process would run it: on PostgreSQL with a store
 * (a pool, a listening connection) of its own on the same schema; on SQLite, where one process owns the file, over
 * the harness's store.
 */
export async function startOtherInstance(harness: ApiHarness, options: HarnessOptions = {}): Promise<OtherInstance> {
  const dataDir = tempDataDir();
  const store =
    harness.schema === undefined
      ? harness.store
      : await openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir, schema: harness.schema });
  const engines = createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined });
  const router = createApiRouter({ store, engines, dataDir, log: silent, ...options });
  const app = express();
  app.use("/chat", router);
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    router,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (store !== harness.store) await store.close();
      removeDataDir(dataDir);
    },
  };
}

/**
 * Starts a harness for the enclosing describe block (beforeAll) and stops it afterwards (afterAll). The
 * returned object forwards to the harness once it is running.
 */
export function useApiHarness(backend: Backend, options: HarnessOptions = {}): ApiHarness {
  let harness: ApiHarness | undefined;
  beforeAll(async () => {
    harness = await startApiHarness(backend, options);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });
  return new Proxy({} as ApiHarness, {
    get(_target, property) {
      if (!harness) throw new Error("the API harness is not running (used outside a test?)");
      return Reflect.get(harness, property);
    },
  });
}

/** The success envelope, exactly: `{Data, Version: "1.0.0", Success: true, Code: 200, Message: ""}`. */
export function expectSuccess(response: ApiResponse, ...data: [] | [unknown]): void {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(["Code", "Data", "Message", "Success", "Version"]);
  expect(response.body).toMatchObject({ Version: "1.0.0", Success: true, Code: 200, Message: "" });
  if (data.length > 0) expect(response.body.Data).toEqual(data[0]);
}

/**
 * A failure envelope: HTTP status equal to `Code`, Success false, Data null, a JSON body (never HTML or a
 * stack trace), and a Message matching `message` (a string is matched exactly).
 */
export function expectFailure(response: ApiResponse, status: number, message: string | RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    Data: null,
    Version: "1.0.0",
    Success: false,
    Code: status,
    Message: expect.any(String),
  });
  if (typeof message === "string") expect(response.body.Message).toBe(message);
  else expect(response.body.Message).toMatch(message);
  expect(response.text).not.toMatch(/<html|<!DOCTYPE|\n\s+at .+:\d+:\d+/i);
}

let listingCounter = 0;

/** A complete RealEstateCreate body for a house for sale, unique MLSNumber and Url; `overrides` win. */
export function sampleListing(serialNumber: string, overrides: Partial<ListingInput> = {}): ListingInput {
  listingCounter++;
  const tag = `${process.pid}-${listingCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    SerialNumber: serialNumber,
    SaleType: "for_sale",
    Status: "Active",
    CurrencySymbol: "$",
    PropertyType: "Single Family Residential",
    Bedrooms: 3,
    Bathrooms: 2.5,
    Url: `https://example.com/property/${tag}`,
    MLSNumber: `MLS-${tag}`,
    YearBuilt: 1998,
    DaysOnMarket: 2,
    LotArea: 800,
    BuildingArea: 2500,
    AreaUnit: "Square Feet",
    ParkingSpots: 2,
    ...overrides,
  };
}
