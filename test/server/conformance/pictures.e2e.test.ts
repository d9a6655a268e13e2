import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_PICTURE_BYTES } from "../../../src/client/chatbot-client.js";
import { ChatbotApiError } from "../../../src/client/index.js";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";
import { paddedPng, png, textFile } from "../../support/media-fixtures.js";

const PICTURE = "/chat/Chatbot/Picture";

/** The public GET of a chatbot's picture, with no key. */
const picture = (api: ApiHarness, serialNumber: string, kind: string, headers: Record<string, string> = {}) =>
  api.call(`${PICTURE}?serialNumber=${encodeURIComponent(serialNumber)}&kind=${kind}`, undefined, headers, {
    method: "GET",
  });

/** All three upload steps through the project's client; `confirm: false` stops after the PUT. */
async function upload(api: ApiHarness, t: Tenant, bytes: Uint8Array, confirm = true): Promise<number> {
  if (confirm) return api.client(t).uploadFile({ fileName: "picture.png", bytes });
  const pre = await api.call("/chat/User/GetPreUploadUrl", { fileName: "picture.png" }, t.secret);
  const url = pre.body.Data.PreUploadUrl as string;
  const put = await api.call(url.slice(api.url.length), bytes, { "content-type": "image/png" }, { method: "PUT" });
  expect(put.status, put.text).toBe(200);
  return Number(pre.body.Data.FileStoreId);
}

describe.each(await availableBackends())("a chatbot's pictures (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("serves the image a chatbot's ChatProfilePicture and ChatIcon name, to anyone, with its type and an ETag", async () => {
    const avatar = png(3, 2, [200, 40, 40]);
    const icon = png(1, 1);
    const serial = await api.addChatbot(api.a, {
      ChatProfilePicture: String(await upload(api, api.a, avatar)),
      ChatIcon: ` ${await upload(api, api.a, icon)} `,
    });
    const served = await picture(api, serial, "profile");
    expect(served.status, served.text).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("content-length")).toBe(String(avatar.length));
    expect(served.headers.get("cache-control")).toBe("public, max-age=300");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = `"${createHash("sha256").update(avatar).digest("hex")}"`;
    expect(served.headers.get("etag")).toBe(etag);
    const bytes = await fetch(`${api.url}${PICTURE}?serialNumber=${serial}&kind=profile`).then((r) => r.arrayBuffer());
    expect(Buffer.from(bytes).equals(avatar)).toBe(true);
    const iconBytes = await fetch(`${api.url}${PICTURE}?serialnumber=${serial}&KIND=icon`).then((r) => r.arrayBuffer());
    expect(Buffer.from(iconBytes).equals(icon)).toBe(true);
    // The ETag answers a browser that has the picture with a 304 and no body.
    for (const known of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await picture(api, serial, "profile", { "if-none-match": known });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
    }
    expect((await picture(api, serial, "profile", { "if-none-match": '"other"' })).status).toBe(200);
    const head = await fetch(`${api.url}${PICTURE}?serialNumber=${serial}&kind=profile`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/png");
  });

  it("answers the 404 envelope, saying why, for anything but a confirmed image file of the chatbot's workspace", async () => {
    const s = api.a.serialNumber;
    expectFailure(await picture(api, "no-such-chatbot", "profile"), 404, "Chatbot no-such-chatbot not found");
    const cases: [Record<string, string>, string][] = [
      [{ ChatProfilePicture: "" }, `Chatbot ${s} has no profile picture file: its ChatProfilePicture is empty`],
      [
        { ChatProfilePicture: "https://cdn.example/me.png" },
        `Chatbot ${s} has no profile picture file: its ChatProfilePicture is an address, not a file id`,
      ],
      [
        { ChatProfilePicture: "me.png" },
        `Chatbot ${s} has no profile picture file: its ChatProfilePicture is not a file id`,
      ],
      [{ ChatProfilePicture: "999999" }, `File 999999 (the ChatProfilePicture of chatbot ${s}) not found`],
      // Digits past a safe integer are no id.
      [
        { ChatProfilePicture: "9999999999999999" },
        `Chatbot ${s} has no profile picture file: its ChatProfilePicture is not a file id`,
      ],
    ];
    const foreign = await upload(api, api.b, png());
    cases.push([
      { ChatProfilePicture: String(foreign) },
      `File ${foreign} (the ChatProfilePicture of chatbot ${s}) not found`,
    ]);
    const unconfirmed = await upload(api, api.a, png(), false);
    cases.push([
      { ChatIcon: String(unconfirmed) },
      `File ${unconfirmed} (the ChatIcon of chatbot ${s}) is not uploaded and confirmed yet`,
    ]);
    const text = await upload(api, api.a, textFile());
    cases.push([
      { ChatIcon: String(text) },
      `File ${text} (the ChatIcon of chatbot ${s}) is not an image (unknown type)`,
    ]);
    for (const [settings, message] of cases) {
      expect((await api.call("/chat/Chatbot/Edit", { serialNumber: s, ...settings }, api.a.secret)).status).toBe(200);
      const kind = "ChatIcon" in settings ? "icon" : "profile";
      expectFailure(await picture(api, s, kind), 404, message);
    }
  });

  it("checks its query, and takes GET only", async () => {
    expectFailure(
      await picture(api, api.a.serialNumber, "banner"),
      400,
      "Invalid request: kind must be profile or icon",
    );
    const posted = await api.call(`${PICTURE}?serialNumber=${api.a.serialNumber}&kind=icon`, {}, api.a.secret);
    expectFailure(posted, 405, `POST is not allowed on ${PICTURE}; use GET`);
  });

  it("is read by the project's client: the bytes, their type and ETag; undefined when there is none", async () => {
    const client = api.client(api.a);
    const avatar = png(4, 4);
    const serial = await api.addChatbot(api.a);
    expect(await client.chatbotPicture(serial, "profile")).toBeUndefined();
    await client.editChatbot(serial, { ChatProfilePicture: String(await upload(api, api.a, avatar)) });
    const got = await client.chatbotPicture(serial, "profile");
    expect(got?.contentType).toBe("image/png");
    expect(got?.etag).toBe(`"${createHash("sha256").update(avatar).digest("hex")}"`);
    expect(Buffer.from(got?.bytes ?? []).equals(avatar)).toBe(true);
    // A picture larger than the client takes is refused, not read.
    await client.editChatbot(serial, { ChatIcon: String(await upload(api, api.a, paddedPng(MAX_PICTURE_BYTES + 1))) });
    const error = await client.chatbotPicture(serial, "icon").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChatbotApiError);
    expect(error).toMatchObject({ kind: "malformed", operation: "Picture" });
  });
});
