import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finalErrorHandler, unknownRoute } from "../../src/app/json-fallbacks.js";
import { createLogger } from "../../src/common/log.js";

const logged: string[] = [];
let server: Server;
let base: string;
const nodeEnv = process.env.NODE_ENV;

beforeAll(async () => {
  const log = createLogger("info", {
    pretty: false,
    destination: new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk));
        done();
      },
    }),
  });
  const app = express();
  app.post("/json", express.json({ limit: "1kb" }), (req, res) => {
    res.json({ got: req.body });
  });
  app.get("/throws", () => {
    throw new Error("secret detail at /srv/app/file.ts");
  });
  app.get("/rejects", async () => {
    throw Object.assign(new Error("no"), { status: 418 });
  });
  app.get("/half", (_req, res, next) => {
    res.write("partial");
    next(new Error("after the start"));
  });
  app.use(unknownRoute, finalErrorHandler(log));
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.env.NODE_ENV = nodeEnv;
  await new Promise((resolve) => server.close(resolve));
});

const postJson = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/json`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

/** Status and parsed JSON body, failing on anything that is not JSON. */
async function answer(response: Response): Promise<[number, unknown]> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return [response.status, await response.json()];
}

describe("the bridge app's JSON fallbacks", () => {
  for (const env of ["development", "production", undefined]) {
    it(`answers short JSON, never a page or a stack, with NODE_ENV=${env}`, async () => {
      if (env === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = env;
      expect(await answer(await postJson("{"))).toEqual([400, { error: "the request body is not valid JSON" }]);
      expect(await answer(await postJson(`"${"x".repeat(2000)}"`))).toEqual([
        413,
        { error: "the request body is over 1 KB" },
      ]);
      expect(await answer(await postJson("{}", { "content-encoding": "br-x" }))).toEqual([
        415,
        { error: "the request body's encoding is not supported; send UTF-8 JSON" },
      ]);
      expect(await answer(await fetch(`${base}/throws`))).toEqual([500, { error: "internal error" }]);
      expect(await answer(await fetch(`${base}/rejects`))).toEqual([418, { error: "I'm a Teapot" }]);
      expect(await answer(await fetch(`${base}/nowhere`, { method: "DELETE" }))).toEqual([404, { error: "not found" }]);
      expect(await answer(await postJson('{"a":1}'))).toEqual([200, { got: { a: 1 } }]);
    });
  }

  it("logs an unexpected failure with its details, which the answer leaves out", async () => {
    logged.length = 0;
    await fetch(`${base}/throws`);
    const line = JSON.parse(logged.find((entry) => entry.includes("unexpected failure")) ?? "{}");
    expect(line.err.message).toBe("secret detail at /srv/app/file.ts");
  });

  it("cuts off a response that failed after it started, instead of appending an error to it", async () => {
    await expect(fetch(`${base}/half`).then((response) => response.text())).rejects.toThrow();
  });
});
