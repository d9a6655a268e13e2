import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { ListingChange } from "../../../src/api/listing-changes.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { changeChannel } from "../../../src/server/store/postgres-change-feed.js";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  sampleListing,
  startOtherInstance,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";
import { TEST_POSTGRES_URL } from "../../support/postgres.js";

const CHANGES = "/chat/Chatbot/RealEstateChanges";
const HEARTBEAT_MS = 150;

function clientOf(url: string, tenant: Tenant): ChatbotClient {
  return new ChatbotClient({
    baseUrl: url,
    apiKey: tenant.secretKey,
    sessionKey: tenant.sessionKey,
    timeoutMs: 5_000,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
}

/** The next `count` changes of a feed. */
async function take(feed: AsyncGenerator<ListingChange>, count: number): Promise<ListingChange[]> {
  const changes: ListingChange[] = [];
  while (changes.length < count) {
    const next = await feed.next();
    if (next.done) throw new Error(`the feed ended after ${changes.length} changes`);
    changes.push(next.value);
  }
  return changes;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(await availableBackends())("listing change feed (%s)", (backend) => {
  const api: ApiHarness = useApiHarness(backend, { feedHeartbeatMs: HEARTBEAT_MS });

  async function follow(serialNumber: string, tenant = api.a, url = api.url) {
    const client = clientOf(url, tenant);
    const controller = new AbortController();
    cleanups.push(async () => {
      controller.abort();
      await client.close();
    });
    return client.listingChanges(serialNumber, { signal: controller.signal });
  }

  it("announces each create, update and delete of the chatbot's listings, and none of another chatbot", async () => {
    const serial = await api.addChatbot(api.a);
    const other = await api.addChatbot(api.a);
    const feed = await follow(serial);
    const client = api.client(api.a);
    await client.createListing(sampleListing(other, { MLSNumber: "OTHER-1", Url: "https://example.com/other-1" }));
    const listing = sampleListing(serial, { MLSNumber: "FEED-1", Url: "https://example.com/feed-1" });
    const id = await client.createListing(listing);
    await client.updateListing({ ...listing, MLSNumber: "FEED-1B", Key: id, KeyType: "NewOaks" });
    await client.deleteListings({ SerialNumber: serial, Keys: ["FEED-1B"], KeyType: "MLSNumber" });
    expect(await take(feed, 3)).toEqual([
      { SerialNumber: serial, MLSNumber: "FEED-1", Kind: "create" },
      { SerialNumber: serial, MLSNumber: "FEED-1B", Kind: "update" },
      { SerialNumber: serial, MLSNumber: "FEED-1B", Kind: "delete" },
    ]);
  });

  it("refuses a request without the session key, another workspace's chatbot and no serial number", async () => {
    const query = `${CHANGES}?SerialNumber=${api.a.serialNumber}`;
    expectFailure(
      await api.call(query, undefined, {}, { method: "GET" }),
      401,
      "RealEstateChanges needs the session key in chatrobot-sessionkey",
    );
    expectFailure(
      await api.call(query, undefined, api.a.secret, { method: "GET" }),
      401,
      "RealEstateChanges needs the session key in chatrobot-sessionkey; Authorization (the secret key) is not accepted here",
    );
    expectFailure(
      await api.call(query, undefined, api.b.session, { method: "GET" }),
      404,
      `Chatbot ${api.a.serialNumber} not found`,
    );
    expectFailure(
      await api.call(CHANGES, undefined, api.a.session, { method: "GET" }),
      400,
      "Invalid request: SerialNumber is required",
    );
    expectFailure(await api.call(query, {}, api.a.session), 405, `POST is not allowed on ${CHANGES}; use GET`);
  });

  it("answers HEAD with the type of the feed", async () => {
    const response = await fetch(`${api.url}${CHANGES}?SerialNumber=${api.a.serialNumber}`, {
      method: "HEAD",
      headers: api.a.session,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  });

  it("is an event stream that sends heartbeats while nothing changes", async () => {
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const response = await fetch(`${api.url}${CHANGES}?SerialNumber=${api.a.serialNumber}`, {
      headers: api.a.session,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes(": heartbeat\n\n: heartbeat\n\n")) {
      const next = await reader?.read();
      if (!next || next.done) throw new Error(`the stream ended: ${text}`);
      text += next.value;
    }
    expect(text).toBe(": listening\n\n: heartbeat\n\n: heartbeat\n\n");
  });

  it("ends its feeds cleanly when the server shuts down, and a change reaches another instance's subscribers", async () => {
    const other = await startOtherInstance(api, { feedHeartbeatMs: HEARTBEAT_MS });
    cleanups.push(() => other.close());
    const feed = await follow(api.a.serialNumber, api.a, other.url);
    const listing = sampleListing(api.a.serialNumber, { MLSNumber: "ACROSS-1", Url: "https://example.com/across-1" });
    await api.client(api.a).createListing(listing);
    expect(await take(feed, 1)).toEqual([{ SerialNumber: api.a.serialNumber, MLSNumber: "ACROSS-1", Kind: "create" }]);
    other.router.endFeeds();
    expect(await feed.next()).toEqual({ done: true, value: undefined });
  });
});

describe.skipIf(!(await availableBackends()).includes("postgres"))("listing change feed on PostgreSQL", () => {
  const api = useApiHarness("postgres", { feedHeartbeatMs: HEARTBEAT_MS });

  it("ends the feeds when the listening connection breaks, and listens again on the next subscription", async () => {
    const client = clientOf(api.url, api.a);
    cleanups.push(() => client.close());
    const feed = await client.listingChanges(api.a.serialNumber);
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    cleanups.push(() => admin.end());
    const channel = changeChannel(api.schema ?? "");
    const killed = await admin.query(
      "select pg_terminate_backend(pid) as killed from pg_stat_activity where query = $1 and datname = current_database()",
      [`LISTEN "${channel}"`],
    );
    expect(killed.rows).toEqual([{ killed: true }]);
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    const again = await client.listingChanges(api.a.serialNumber);
    const listing = sampleListing(api.a.serialNumber, { MLSNumber: "AGAIN-1", Url: "https://example.com/again-1" });
    await api.client(api.a).createListing(listing);
    expect(await take(again, 1)).toEqual([{ SerialNumber: api.a.serialNumber, MLSNumber: "AGAIN-1", Kind: "create" }]);
    await again.return(undefined);
  });
});
