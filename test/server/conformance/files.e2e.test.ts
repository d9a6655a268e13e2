import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { Agent, fetch as undiciFetch, request as undiciRequest } from "undici";
import { describe, expect, it } from "vitest";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  expectSuccess,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";
import { gif, paddedPng, png, textFile, wav } from "../../support/media-fixtures.js";

const PRE_UPLOAD = "/chat/User/GetPreUploadUrl";
const CONFIRM = "/chat/User/UploadSuccess";
const ASK = "/chat/Chat/ClientAsk";
const MB = 1024 * 1024;
const MAX_UPLOAD = 100 * MB;

/** Step 1: the file id and the upload URL. */
async function preUpload(api: ApiHarness, t: Tenant, fileName: string) {
  const response = await api.call(PRE_UPLOAD, { fileName }, t.secret);
  expectSuccess(response);
  expect(Object.keys(response.body.Data).sort()).toEqual(["FileStoreId", "PreUploadUrl"]);
  const { FileStoreId, PreUploadUrl } = response.body.Data as { FileStoreId: string; PreUploadUrl: string };
  expect(FileStoreId).toMatch(/^[1-9]\d*$/);
  expect(PreUploadUrl.startsWith(`${api.url}/chat/User/Upload/${FileStoreId}?token=`)).toBe(true);
  return { id: Number(FileStoreId), url: PreUploadUrl };
}

/** Step 2: PUT of the raw bytes, no API key. */
async function put(api: ApiHarness, url: string, bytes: Uint8Array) {
  return api.call(url.slice(api.url.length), bytes, { "content-type": "application/octet-stream" }, { method: "PUT" });
}

/** All three steps; `confirm: false` stops after the PUT. */
async function upload(api: ApiHarness, t: Tenant, fileName: string, bytes: Uint8Array, confirm = true) {
  const { id, url } = await preUpload(api, t, fileName);
  expectSuccess(await put(api, url, bytes), true);
  if (confirm) expectSuccess(await api.call(CONFIRM, { FileStoreId: String(id) }, t.secret), true);
  return id;
}

/** A PUT sent with node:http, for bodies fetch cannot describe (a false Content-Length, a long stream). */
function rawPut(
  url: string,
  headers: Record<string, string | number>,
  send?: (write: (chunk: Buffer) => Promise<boolean>) => Promise<void>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "PUT", headers });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on("error", reject);
    let stopped = false;
    req.on("close", () => {
      stopped = true;
    });
    const write = (chunk: Buffer) =>
      new Promise<boolean>((done) => {
        if (stopped || req.destroyed) return done(false);
        if (req.write(chunk)) done(true);
        else req.once("drain", () => done(!stopped));
      });
    req.flushHeaders();
    // Without `send` the body never comes: the server must answer from the headers alone.
    void send?.(write).then(
      () => !stopped && req.end(),
      () => {},
    );
  });
}

describe.each(await availableBackends())("files and media questions (%s)", (backend) => {
  const api = useApiHarness(backend);
  const ask = (sessionID: number, chatAskType: string, fileIds: unknown, content = "") =>
    api.call(ASK, { sessionID, content, chatAskType, fileIds }, api.a.secret);

  it("uploads in three steps and answers an Image question with the file", async () => {
    const id = await upload(api, api.a, "house.png", png(4, 3));
    // Confirming twice is harmless.
    expectSuccess(await api.call(CONFIRM, { FileStoreId: id }, api.a.secret), true);
    const sessionID = await api.openSession(api.a);
    const response = await ask(sessionID, "Image", [id]);
    expectSuccess(response);
    expect(Object.keys(response.body.Data).sort()).toEqual(["content", "messageid", "noAnswer", "totalToken"]);
    const [question] = await api.store.messages.recent(sessionID, 10);
    expect(question).toMatchObject({ role: "User", askType: "Image", fileIds: [id], content: "" });
  });

  it("works with the project's client (uploadFile, then ask with fileIds)", async () => {
    const client = api.client(api.a);
    const first = await client.uploadFile({ fileName: "a.png", bytes: png(), contentType: "image/png" });
    const second = await client.uploadFile({ fileName: "still.gif", bytes: gif(1) });
    const sessionId = await client.createSession(api.a.serialNumber);
    const answer = await client.ask({
      sessionId,
      content: "Like these?",
      chatAskType: "Image",
      fileIds: [first, second],
    });
    expect(answer.messageId).toBeGreaterThan(0);
    const audio = await client.uploadFile({ fileName: "voice.wav", bytes: wav() });
    const heard = await client.ask({ sessionId, content: "", chatAskType: "Audio", fileIds: [audio] });
    expect(heard.content.length).toBeGreaterThan(0);
  });

  it("refuses wrong numbers of fileIds for the ask type", async () => {
    const sessionID = await api.openSession(api.a);
    const [one, two] = [await upload(api, api.a, "1.wav", wav()), await upload(api, api.a, "2.wav", wav(400))];
    const cases: [string, unknown, string][] = [
      ["Audio", [one, two], "fileIds must hold exactly one file for Audio"],
      ["Video", [one, two], "fileIds must hold exactly one file for Video"],
      ["Image", [], "fileIds is required when chatAskType is Image"],
      ["Image", null, "fileIds is required when chatAskType is Image"],
      ["Audio", undefined, "fileIds is required when chatAskType is Audio"],
      ["Text", [one], "fileIds is only valid when chatAskType is Image, Audio or Video"],
      ["Image", Array.from({ length: 11 }, () => one), "fileIds must list at most 10 items"],
      ["Image", ["1"], "fileIds[0] must be a whole number ≥ 1, not a string"],
    ];
    for (const [type, fileIds, problem] of cases) {
      expectFailure(await ask(sessionID, type, fileIds, "hi"), 400, `Invalid request: ${problem}`);
    }
    expect(await api.store.messages.recent(sessionID, 10)).toEqual([]);
  });

  it("identifies formats from the bytes: a PNG is no audio, text is no image, animated GIFs are refused", async () => {
    const sessionID = await api.openSession(api.a);
    const pngId = await upload(api, api.a, "voice.wav", png());
    const textId = await upload(api, api.a, "photo.png", textFile());
    const wavId = await upload(api, api.a, "photo.jpg", wav());
    const animated = await upload(api, api.a, "spin.gif", gif(2));
    const still = await upload(api, api.a, "still.gif", gif(1));
    const image = "Image must be PNG, JPEG, WEBP, GIF";
    expectFailure(
      await ask(sessionID, "Audio", [pngId]),
      400,
      `File ${pngId} (image/png) is not accepted: Audio must be WAV`,
    );
    expectFailure(
      await ask(sessionID, "Image", [textId]),
      400,
      `File ${textId} (unknown type) is not accepted: ${image}`,
    );
    expectFailure(await ask(sessionID, "Image", [wavId]), 400, `File ${wavId} (audio/wav) is not accepted: ${image}`);
    expectFailure(
      await ask(sessionID, "Video", [wavId]),
      400,
      /^File \d+ \(audio\/wav\) is not accepted: Video must be MP4/,
    );
    const message = `File ${animated} is an animated GIF; only non-animated GIFs are accepted`;
    expectFailure(await ask(sessionID, "Image", [still, animated]), 400, message);
    expectSuccess(await ask(sessionID, "Image", [still, pngId], "this one"));
    expectSuccess(await ask(sessionID, "Audio", [wavId]));
  });

  it("caps an image at 20 MB (413)", async () => {
    const sessionID = await api.openSession(api.a);
    const big = await upload(api, api.a, "big.png", paddedPng(21 * MB));
    expectFailure(await ask(sessionID, "Image", [big]), 413, `File ${big} is 21 MB; Image files may be at most 20 MB`);
    const fits = await upload(api, api.a, "fits.png", paddedPng(20 * MB));
    expectSuccess(await ask(sessionID, "Image", [fits]));
  });

  it("caps an upload at 100 MB, by Content-Length and by counting a streamed body (413)", async () => {
    const declared = await preUpload(api, api.a, "huge.mp4");
    const byLength = await rawPut(declared.url, { "content-length": 100 * MB + 1 });
    expect(byLength.status).toBe(413);
    expect(JSON.parse(byLength.body)).toEqual({
      Data: null,
      Version: "1.0.0",
      Success: false,
      Code: 413,
      Message: "The file is 100.1 MB; uploads may be at most 100 MB",
    });
    const streamed = await preUpload(api, api.a, "endless.mp4");
    const chunk = Buffer.alloc(MB, 7);
    let sent = 0;
    const byCount = await rawPut(streamed.url, { "transfer-encoding": "chunked" }, async (write) => {
      while (sent <= 101 * MB && (await write(chunk))) sent += chunk.length;
    });
    expect(byCount.status).toBe(413);
    expect(JSON.parse(byCount.body)).toMatchObject({ Success: false, Code: 413, Data: null });
    expect(JSON.parse(byCount.body).Message).toBe("The file is larger than 100 MB, the most an upload may be");
    expect(sent).toBeGreaterThanOrEqual(100 * MB);
    // Neither upload left a file behind: the URLs are still unused, and nothing can be confirmed.
    expect((await api.store.files.byId(streamed.id))?.state).toBe("pending");
    expectFailure(await api.call(CONFIRM, { FileStoreId: streamed.id }, api.a.secret), 409, /has no bytes yet/);
  }, 60_000);

  it("makes an upload URL single use (409), refuses a wrong token and an empty body", async () => {
    const { id, url } = await preUpload(api, api.a, "once.png");
    expectFailure(await put(api, url.replace(/token=[^&]+/, "token=forged"), png()), 404, "Unknown upload URL");
    expectFailure(await put(api, url.replace(/token=[^&]+/, ""), png()), 404, "Unknown upload URL");
    expectFailure(
      await put(api, url.replace(`/Upload/${id}?`, "/Upload/987654321?"), png()),
      404,
      "Unknown upload URL",
    );
    expectFailure(await put(api, url, new Uint8Array(0)), 400, "The upload is empty");
    expectSuccess(await put(api, url, png()), true);
    expectFailure(await put(api, url, png()), 409, "This upload URL was already used");
    expectSuccess(await api.call(CONFIRM, { FileStoreId: id }, api.a.secret), true);
    expectFailure(await put(api, url, gif(1)), 409, "This upload URL was already used");
  });

  it("answers a refused upload so that a client still sending its body receives the answer (undici)", async () => {
    const dispatcher = new Agent();
    try {
      const { url } = await preUpload(api, api.a, "once.png");
      expectSuccess(await put(api, url, png()), true);
      const tenMegabytes = Buffer.alloc(10 * MB, 7);
      const forged = url.replace(/token=[^&]+/, "token=forged");
      for (const [target, status, message] of [
        [url, 409, "This upload URL was already used"],
        [forged, 404, "Unknown upload URL"],
      ] as const) {
        const fetched = await undiciFetch(target, { method: "PUT", body: tenMegabytes, dispatcher });
        expect(fetched.status).toBe(status);
        expect(await fetched.json()).toMatchObject({ Success: false, Code: status, Message: message });
        const requested = await undiciRequest(target, { method: "PUT", body: tenMegabytes, dispatcher });
        expect(requested.statusCode).toBe(status);
        expect(await requested.body.json()).toMatchObject({ Success: false, Code: status, Message: message });
      }
      // Over the cap: by Content-Length, the bytes on their way; by counting, a stream without a length.
      const declared = await preUpload(api, api.a, "declared.mp4");
      const overCap = Buffer.alloc(MAX_UPLOAD + MB, 1);
      const byLength = await undiciRequest(declared.url, { method: "PUT", body: overCap, dispatcher });
      expect(byLength.statusCode).toBe(413);
      expect((await byLength.body.json()) as object).toMatchObject({
        Code: 413,
        Message: /uploads may be at most 100 MB/,
      });
      const byFetch = await undiciFetch(declared.url, { method: "PUT", body: overCap, dispatcher });
      expect(byFetch.status).toBe(413);
      await byFetch.arrayBuffer();
      const streamed = await preUpload(api, api.a, "streamed.mp4");
      const chunks = Readable.from(
        (function* () {
          for (let sent = 0; sent <= MAX_UPLOAD + 8 * MB; sent += MB) yield Buffer.alloc(MB, 2);
        })(),
      );
      const byCount = await undiciRequest(streamed.url, { method: "PUT", body: chunks, dispatcher });
      expect(byCount.statusCode).toBe(413);
      expect((await byCount.body.json()) as object).toMatchObject({
        Code: 413,
        Message: "The file is larger than 100 MB, the most an upload may be",
      });
      // The server, and the same client, go on.
      const next = await preUpload(api, api.a, "next.png");
      const ok = await undiciRequest(next.url, { method: "PUT", body: Buffer.from(png()), dispatcher });
      expect(ok.statusCode).toBe(200);
      expect(await ok.body.json()).toMatchObject({ Success: true, Data: true });
    } finally {
      await dispatcher.close();
    }
  }, 60_000);

  it("reads at most a bounded part of a refused body before closing the connection", async () => {
    const { url } = await preUpload(api, api.a, "huge.mp4");
    // A client that keeps writing whatever the answer: the server reads a bounded part, then closes.
    const outcome = await new Promise<{ status: number; sent: number }>((resolve) => {
      const req = httpRequest(url, { method: "PUT", headers: { "content-length": 400 * MB } });
      let status = 0;
      let sent = 0;
      req.on("response", (res) => {
        status = res.statusCode ?? 0;
        res.resume();
      });
      req.on("error", () => {});
      req.on("close", () => resolve({ status, sent }));
      const chunk = Buffer.alloc(MB, 3);
      const pump = () => {
        while (sent < 400 * MB && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    });
    expect(outcome.status).toBe(413);
    expect(outcome.sent).toBeLessThan(100 * MB);
  }, 60_000);

  it("expires an upload URL after 5 minutes (404)", async () => {
    try {
      const early = await preUpload(api, api.a, "early.png");
      const late = await preUpload(api, api.a, "late.png");
      api.clock.advance(5 * 60_000 - 2_000);
      expectSuccess(await put(api, early.url, png()), true);
      api.clock.advance(3_000);
      expectFailure(
        await put(api, late.url, png()),
        404,
        "This upload URL has expired (it is valid for 5 minutes); ask GetPreUploadUrl again",
      );
    } finally {
      api.clock.reset();
    }
  });

  it("refuses files that are not uploaded and confirmed, or belong to another workspace", async () => {
    const sessionID = await api.openSession(api.a);
    const pending = await preUpload(api, api.a, "pending.png");
    const unconfirmed = await upload(api, api.a, "unconfirmed.png", png(), false);
    const theirs = await upload(api, api.b, "theirs.png", png());
    const notReady = (id: number) => `File ${id} is not uploaded and confirmed yet`;
    expectFailure(await ask(sessionID, "Image", [pending.id]), 400, notReady(pending.id));
    expectFailure(await ask(sessionID, "Image", [unconfirmed]), 400, notReady(unconfirmed));
    expectFailure(await ask(sessionID, "Image", [theirs]), 404, `File ${theirs} not found`);
    expectFailure(await ask(sessionID, "Image", [987654321]), 404, "File 987654321 not found");
    const confirm = (FileStoreId: unknown, t = api.a) => api.call(CONFIRM, { FileStoreId }, t.secret);
    expectFailure(
      await confirm(String(pending.id)),
      409,
      `File ${pending.id} has no bytes yet: PUT them to the upload URL first`,
    );
    expectFailure(await confirm(theirs), 404, `File ${theirs} not found`);
    expectFailure(await confirm(987654321), 404, "File 987654321 not found");
    expectFailure(await api.call(CONFIRM, {}, api.a.secret), 400, "Invalid request: FileStoreId is required");
    const fileId =
      "Invalid request: FileStoreId must be a file id as GetPreUploadUrl gave it: a number, or the same as a string";
    for (const wrong of ["abc", true, null, 0, "-3"]) expectFailure(await confirm(wrong), 400, fileId);
    expectSuccess(await confirm(unconfirmed), true);
    expectSuccess(await ask(sessionID, "Image", [unconfirmed]));
  });

  it("validates GetPreUploadUrl and wants the secret key", async () => {
    expectFailure(await api.call(PRE_UPLOAD, {}, api.a.secret), 400, "Invalid request: fileName is required");
    const empty = await api.call(PRE_UPLOAD, { fileName: "" }, api.a.secret);
    expectFailure(empty, 400, "Invalid request: fileName must not be empty");
    const traversal = await api.call(PRE_UPLOAD, { fileName: "../etc/passwd" }, api.a.secret);
    expectFailure(traversal, 400, "Invalid request: fileName must be a file name without path separators");
    const bySession = await api.call(PRE_UPLOAD, { fileName: "a.png" }, api.a.session);
    expectFailure(
      bySession,
      401,
      "GetPreUploadUrl needs the secret key in Authorization; chatrobot-sessionkey (the session key) is not accepted here",
    );
    expectSuccess(await api.call(PRE_UPLOAD, { FILENAME: "a.png" }, api.a.secret));
  });
});
