import { describe, expect, it } from "vitest";
import { contrast, rgb, swatch, widgetSettings } from "../../../adapters/web/widget-settings.js";

describe("widgetSettings", () => {
  it("takes the chatbot's settings, checked: colours it can parse, http(s) addresses only", () => {
    const settings = widgetSettings(
      "sn-1",
      {
        Name: "  Harbor Homes ",
        ChatProfilePicture: "https://cdn.example/avatar.png",
        ChatIcon: "javascript:alert(1)",
        ChatBubbleAlign: 1,
        ChatBubbleColor: "rgb( 15, 118, 110 )",
        UserMessageColor: "not a colour",
        UserInputPlaceholder: "Ask about a home…",
        ChatbotPopupOnce: true,
        ChatbotPrivacyPolicyName: "Privacy",
        ChatbotPrivacyPolicyDescription: "We keep your messages 30 days.",
        ChatbotPrivacyPolicyUrl: "https://agency.example/privacy",
        FacebookUrl: "https://facebook.com/harbor",
        InstagramUrl: "ftp://instagram.example",
        RemoveChatLogOnBrowserClose: true,
      },
      "chatbridge",
    );
    expect(settings).toEqual({
      chatbot: "sn-1",
      name: "Harbor Homes",
      avatarUrl: "https://cdn.example/avatar.png",
      iconUrl: undefined,
      align: "left",
      colors: {
        bot: { background: "rgb(15,118,110)", text: "rgb(255,255,255)" },
        // The API's default user colour, white, takes the near-black text.
        user: { background: "rgb(255,255,255)", text: "rgb(17,24,39)" },
      },
      placeholder: "Ask about a home…",
      popupOnce: true,
      privacy: {
        name: "Privacy",
        description: "We keep your messages 30 days.",
        url: "https://agency.example/privacy",
      },
      social: { facebook: "https://facebook.com/harbor", instagram: undefined, whatsapp: undefined },
      storage: "session",
      handoff: false,
      // Neither EnableUploadImage nor EnablePushToTalk: text only.
      uploads: { images: false, voice: false, maxBytes: 20 * 1024 * 1024, maxFiles: 10, maxVoiceSeconds: 600 },
    });
  });

  it("gives a picture set as a file id as the web chat's picture route, versioned by the id; an address as it is", () => {
    const fromIds = widgetSettings("sn 1", { ChatProfilePicture: "34327", ChatIcon: " 12 " }, "x");
    expect(fromIds.avatarUrl).toBe("/webchat/picture/profile?chatbot=sn%201&v=34327");
    expect(fromIds.iconUrl).toBe("/webchat/picture/icon?chatbot=sn%201&v=12");
    const mixed = widgetSettings("sn-1", { ChatProfilePicture: "http://cdn.example/a.png", ChatIcon: "34327" }, "x");
    expect(mixed.avatarUrl).toBe("http://cdn.example/a.png");
    expect(mixed.iconUrl).toBe("/webchat/picture/icon?chatbot=sn-1&v=34327");
    // Neither an address nor a file id: the letter avatar and the chat icon.
    for (const value of ["", "avatar.png", "0", "-3", "1e5", "/etc/passwd"]) {
      const none = widgetSettings("sn-1", { ChatProfilePicture: value, ChatIcon: value }, "x");
      expect([none.avatarUrl, none.iconUrl]).toEqual([undefined, undefined]);
    }
  });

  it("offers photos and push-to-talk as the chatbot's switches say, within the bridge's limits", () => {
    const limits = { maxBytes: 1000, maxFiles: 3, maxVoiceSeconds: 60 };
    const none = { canMail: false, email: undefined };
    expect(widgetSettings("sn-1", { EnableUploadImage: true }, "x", none, limits).uploads).toEqual({
      images: true,
      voice: false,
      ...limits,
    });
    expect(widgetSettings("sn-1", { EnablePushToTalk: true }, "x", none, limits).uploads).toMatchObject({
      images: false,
      voice: true,
    });
  });

  it("offers a person only where the request can reach one: mail configured and an address known", () => {
    const mail = { canMail: true, email: undefined };
    expect(widgetSettings("sn-1", { TalkToHumanEmail: "agents@example.com" }, "x", mail).handoff).toBe(true);
    expect(widgetSettings("sn-1", {}, "x", { canMail: true, email: "desk@example.com" }).handoff).toBe(true);
    expect(widgetSettings("sn-1", {}, "x", mail).handoff).toBe(false);
    expect(widgetSettings("sn-1", { TalkToHumanEmail: "agents@example.com" }, "x").handoff).toBe(false);
  });

  it("falls back to the API's defaults and the given name when the settings cannot be read", () => {
    expect(widgetSettings("sn-1", undefined, "Homes")).toMatchObject({
      name: "Homes",
      align: "right",
      colors: { bot: { background: "rgb(37,99,235)", text: "rgb(255,255,255)" } },
      placeholder: "Type a message…",
      popupOnce: false,
      privacy: undefined,
      storage: "local",
    });
  });
});

describe("colours", () => {
  it("reads rgb(), rgba() and hex, and nothing out of range", () => {
    expect(rgb("rgb(1,2,3)")).toEqual([1, 2, 3]);
    expect(rgb("RGBA(10, 20, 30, .5)")).toEqual([10, 20, 30]);
    expect(rgb("#0f766e")).toEqual([15, 118, 110]);
    expect(rgb("#fff")).toEqual([255, 255, 255]);
    expect(rgb("rgb(256,0,0)")).toBeUndefined();
    expect(rgb("red")).toBeUndefined();
  });

  it("gives every colour a text colour that reads at 4.5:1 or better", () => {
    for (let r = 0; r <= 255; r += 15) {
      for (let g = 0; g <= 255; g += 15) {
        for (let b = 0; b <= 255; b += 15) {
          const { text } = swatch([r, g, b]);
          expect(contrast([r, g, b], rgb(text) as [number, number, number])).toBeGreaterThanOrEqual(4.5);
        }
      }
    }
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
  });
});
