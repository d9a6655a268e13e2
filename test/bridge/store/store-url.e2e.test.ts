import path from "node:path";
import { describe, expect, it } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { parseStoreUrl } from "../../../src/bridge/store/store-url.js";
import { maskPassword } from "../../../src/common/masked-url.js";
import { StartupError } from "../../../src/common/startup-error.js";

const dataDir = path.resolve("/srv/chatbridge/data");

describe("parseStoreUrl", () => {
  it("takes unset or blank as the SQLite file in DATA_DIR", () => {
    const expected = { kind: "sqlite", file: path.join(dataDir, "bridge.db") };
    expect(parseStoreUrl(undefined, dataDir)).toEqual(expected);
    expect(parseStoreUrl("  ", dataDir)).toEqual(expected);
  });

  it("reads sqlite:// paths: absolute as given, relative inside DATA_DIR", () => {
    expect(parseStoreUrl("sqlite:///var/lib/bridge.db", dataDir)).toEqual({
      kind: "sqlite",
      file: "/var/lib/bridge.db",
    });
    expect(parseStoreUrl("sqlite://state/bridge.db", dataDir)).toEqual({
      kind: "sqlite",
      file: path.join(dataDir, "state", "bridge.db"),
    });
  });

  it("reads redis:// and rediss:// with a description that leaves out the credentials", () => {
    expect(parseStoreUrl("redis://127.0.0.1:6379", dataDir)).toEqual({
      kind: "redis",
      url: "redis://127.0.0.1:6379",
      description: "redis://127.0.0.1:6379",
    });
    expect(parseStoreUrl("rediss://user:s3cret@cache.example.com:6380/2", dataDir)).toEqual({
      kind: "redis",
      url: "rediss://user:s3cret@cache.example.com:6380/2",
      description: "rediss://cache.example.com:6380/2",
    });
  });

  it("reads memory://", () => {
    expect(parseStoreUrl("memory://", dataDir)).toEqual({ kind: "memory" });
  });

  it.each(["postgres://user:pw@db:5432/chatbridge", "redis://", "memory://extra", "sqlite://", "file.db"])(
    "refuses %s, naming STORE_URL, the value and the accepted forms",
    (url) => {
      expect(() => parseStoreUrl(url, dataDir)).toThrow(
        /^STORE_URL ".*" is not supported: use redis:\/\/.*rediss:\/\/.*memory:\/\/.*sqlite:\/\//,
      );
    },
  );

  it("masks the password in the error", () => {
    expect(() => parseStoreUrl("postgres://user:pw@db:5432/chatbridge", dataDir)).toThrow(
      'STORE_URL "postgres://user:***@db:5432/chatbridge" is not supported',
    );
  });
});

describe("maskPassword", () => {
  it("hides the password and keeps everything else", () => {
    expect(maskPassword("redis://:secret@host:6379/0")).toBe("redis://:***@host:6379/0");
    expect(maskPassword("redis://user:secret@host")).toBe("redis://user:***@host");
    expect(maskPassword("redis://host:6379")).toBe("redis://host:6379");
    expect(maskPassword("redis://user@host")).toBe("redis://user@host");
  });
});

describe("openBridgeStore", () => {
  it("opens memory:// as the memory store", async () => {
    const store = await openBridgeStore({ url: "memory://", dataDir });
    expect(store.description).toBe("memory");
    await store.close();
  });

  it("rejects a namespace that Keyv or Redis patterns would misread", async () => {
    await expect(openBridgeStore({ url: "memory://", dataDir, namespace: "a:b" })).rejects.toThrow(
      /store namespace "a:b" may hold only/,
    );
  });

  it("rejects an unreachable Redis quickly, naming STORE_URL without the password", async () => {
    const started = Date.now();
    const error: unknown = await openBridgeStore({ url: "redis://:hunter2@127.0.0.1:1", dataDir }).catch(
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect(error).toMatchObject({ setting: "STORE_URL", kind: "unavailable" });
    expect((error as Error).message).toBe(
      "STORE_URL=redis://:***@127.0.0.1:1 cannot be reached: connection refused: start Redis, or correct the host and port in STORE_URL.",
    );
    expect((error as Error).message).not.toContain("hunter2");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
