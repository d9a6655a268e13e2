/**
 * A bot's chatbot pictures against the self-hosted chatbot API over HTTP (the project's client, as the bridge uses
 * it), with every picture fetch counted: kept by file id, a new id fetched at once, a failure asked again later.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatbotPictures } from "../../src/bridge/chatbot-pictures.js";
import { ChatbotSettingsReader } from "../../src/bridge/chatbot-settings.js";
import { createLogger } from "../../src/common/log.js";
import { useApiHarness } from "../support/api-harness.js";
import { png, textFile } from "../support/media-fixtures.js";

const api = useApiHarness("sqlite");
const silent = createLogger("silent");

afterEach(() => {
  vi.useRealTimers();
});

/** The pictures of a new chatbot of workspace A, and its client's picture fetches. */
async function picturesOfNewChatbot() {
  const serialNumber = await api.addChatbot(api.a);
  const client = api.client(api.a);
  const fetches = vi.spyOn(client, "chatbotPicture");
  const link = { botId: "default", client, serialNumber };
  const pictures = new ChatbotPictures(link, new ChatbotSettingsReader(link, silent), silent);
  /** Moves the bridge's clock past the settings' freshness (5 s). */
  const later = () => vi.setSystemTime(Date.now() + 6_000);
  vi.useFakeTimers({ toFake: ["Date"] });
  return { serialNumber, client, fetches, pictures, later };
}

describe("ChatbotPictures", () => {
  it("fetches a picture once per file id, and the new one as soon as the settings name it", async () => {
    const { serialNumber, client, fetches, pictures, later } = await picturesOfNewChatbot();
    const first = png(3, 3);
    await client.editChatbot(serialNumber, {
      ChatProfilePicture: String(await client.uploadFile({ fileName: "a.png", bytes: first })),
    });
    const [a, b] = await Promise.all([pictures.read("profile"), pictures.read("profile")]);
    expect(Buffer.from(a?.bytes ?? []).equals(first)).toBe(true);
    expect(b).toBe(a);
    later();
    expect(await pictures.read("profile")).toBe(a);
    expect(fetches).toHaveBeenCalledTimes(1);
    const second = png(5, 5);
    await client.editChatbot(serialNumber, {
      ChatProfilePicture: String(await client.uploadFile({ fileName: "b.png", bytes: second })),
    });
    later();
    expect(Buffer.from((await pictures.read("profile"))?.bytes ?? []).equals(second)).toBe(true);
    expect(fetches).toHaveBeenCalledTimes(2);
    // No icon set: nothing to fetch.
    expect(await pictures.read("icon")).toBeUndefined();
    expect(fetches).toHaveBeenCalledTimes(2);
  });

  it("asks again for a picture it could not read, once the settings' freshness has passed", async () => {
    const { serialNumber, client, fetches, pictures, later } = await picturesOfNewChatbot();
    await client.editChatbot(serialNumber, {
      ChatIcon: String(await client.uploadFile({ fileName: "t.png", bytes: textFile() })),
    });
    expect(await pictures.read("icon")).toBeUndefined();
    expect(await pictures.read("icon")).toBeUndefined();
    expect(fetches).toHaveBeenCalledTimes(1);
    later();
    expect(await pictures.read("icon")).toBeUndefined();
    expect(fetches).toHaveBeenCalledTimes(2);
  });
});
