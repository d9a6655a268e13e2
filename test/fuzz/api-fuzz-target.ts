import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import pino from "pino";
import { createApiRouter } from "../../src/server/api-router.js";
import { createEngines } from "../../src/server/engine/registry.js";
import { openApiStore } from "../../src/server/store/open-store.js";
import { createWorkspace } from "../../src/server/workspace-keys.js";
import { png } from "../support/media-fixtures.js";
import { dropSchema, freshSchemaName, postgresForTests } from "../support/postgres.js";
import { removeDataDir, tempDataDir } from "../support/sqlite.js";

/** The ids the fuzzed requests refer to, made over HTTP like a client would. */
export interface FuzzFixtures {
  secretKey: string;
  sessionKey: string;
  /** The chatbot the reads, the listings and the questions use. */
  serialNumber: string;
  /** A chatbot of its own for Edit, so that a fuzzed rate limit does not refuse the questions. */
  editedSerialNumber: string;
  /** A chatbot that the valid Remove deletes. */
  removedSerialNumber: string;
  sessionId: number;
  /** A listing the valid RealEstateUpdate finds. */
  listingId: string;
  /** An uploaded and confirmed PNG. */
  fileId: number;
  /** Fresh upload URLs (path and query, no host), one per valid PUT. */
  uploadUrls: string[];
}

/** The store the fuzzed API runs on. */
export type FuzzBackend = "sqlite" | "postgres";

/** The self-hosted API on 127.0.0.1 over a fresh store, and what failed unexpectedly (logged errors). */
export interface ApiFuzzTarget {
  url: string;
  fixtures: FuzzFixtures;
  /** Lines the API logged at level error: an unexpected failure, which a fuzzed request must never cause. */
  loggedErrors: string[];
  close(): Promise<void>;
}

/**
 * Starts the API on SQLite in a temp dir, or PostgreSQL in a schema of its own, and makes its fixtures;
 * `uploads` is how many fresh upload URLs to prepare.
 */
export async function startApiFuzzTarget(backend: FuzzBackend, uploads = 40): Promise<ApiFuzzTarget> {
  const dataDir = tempDataDir();
  let schema: string | undefined;
  let databaseUrl: string | undefined;
  if (backend === "postgres") {
    const postgres = await postgresForTests();
    if (!postgres.available) throw new Error(postgres.reason);
    schema = freshSchemaName();
    databaseUrl = postgres.url;
  }
  const store = await openApiStore(schema ? { databaseUrl, dataDir, schema } : { databaseUrl: undefined, dataDir });
  const loggedErrors: string[] = [];
  const log = pino({ level: "error" }, { write: (line: string) => void loggedErrors.push(line) });
  const engines = createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined });
  const app = express();
  app.disable("x-powered-by");
  app.use("/chat", createApiRouter({ store, engines, dataDir, log }));
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
    removeDataDir(dataDir);
    if (schema) await dropSchema(schema);
  };
  try {
    const workspace = await createWorkspace(store, "fuzz");
    const secret = { authorization: workspace.secretKey };
    const call = async (path: string, body: unknown, headers: Record<string, string> = secret) => {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const envelope = (await response.json()) as { Data: unknown; Success: boolean; Message: string };
      if (!envelope.Success) throw new Error(`fixture ${path} failed: ${envelope.Message}`);
      return envelope.Data;
    };
    const addChatbot = async () =>
      (await call("/chat/Chatbot/Add", { timeZone: "America/Chicago", type: 0 })) as string;
    const serialNumber = await addChatbot();
    const preUpload = async () => {
      const data = (await call("/chat/User/GetPreUploadUrl", { fileName: "photo.png" })) as Record<string, string>;
      return { id: Number(data.FileStoreId), url: String(data.PreUploadUrl).slice(url.length) };
    };
    const file = await preUpload();
    const put = await fetch(`${url}${file.url}`, { method: "PUT", body: png() });
    if (put.status !== 200) throw new Error(`fixture upload failed: ${await put.text()}`);
    await call("/chat/User/UploadSuccess", { FileStoreId: file.id });
    const listingId = (await call("/chat/Chatbot/RealEstateCreate", validListing(serialNumber, "fixture"))) as string;
    const fixtures: FuzzFixtures = {
      secretKey: workspace.secretKey,
      sessionKey: workspace.sessionKey,
      serialNumber,
      editedSerialNumber: await addChatbot(),
      removedSerialNumber: await addChatbot(),
      sessionId: ((await call("/chat/Chatbot/GetSession", { serialNumber })) as { SessionID: number }).SessionID,
      listingId,
      fileId: file.id,
      uploadUrls: [],
    };
    for (let n = 0; n < uploads; n++) fixtures.uploadUrls.push((await preUpload()).url);
    return { url, fixtures, loggedErrors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A complete RealEstateCreate body with every optional field, its MLSNumber and Url made from `tag`. */
export function validListing(serialNumber: string, tag: string) {
  return {
    SerialNumber: serialNumber,
    SaleType: "for_sale",
    Status: "Active",
    CurrencySymbol: "$",
    PropertyType: "Condo",
    Bedrooms: 2,
    Bathrooms: 1.5,
    Url: `https://homes.example.com/${tag}`,
    MLSNumber: `MLS-${tag}`,
    YearBuilt: 2001,
    DaysOnMarket: 4,
    LotArea: 0,
    BuildingArea: 980,
    AreaUnit: "Square Feet",
    ParkingSpots: 1,
    Images: ["https://homes.example.com/a.jpg", "https://homes.example.com/b.jpg"],
    Tours: "3D",
    Description: "Bright condo near the park.",
    ExtensionColumn: [{ Key: "Pets", value: "yes" }],
    Location: "Downtown",
    Address: "12 Oak St",
    City: "Austin",
    State: "TX",
    ZIP: "78701",
    Latitude: 30.27,
    Longitude: -97.74,
    SalePrice: 310000,
    HOAMonth: 250,
  };
}
