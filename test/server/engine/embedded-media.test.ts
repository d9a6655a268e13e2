import { describe, expect, it } from "vitest";
import type { Attachment } from "../../../src/server/engine/types.js";
import { png, wav } from "../../support/media-fixtures.js";
import { ask } from "./engine-run.js";
import { mp4 } from "./media-bytes.js";

const photo: Attachment = { kind: "image", mime: "image/png", bytes: png() };
const photos = (count: number) => Array.from({ length: count }, () => photo);
/** A voice message of `seconds` (16-bit mono at 8 kHz). */
const voice = (seconds: number): Attachment => ({ kind: "audio", mime: "audio/wav", bytes: wav(seconds * 8000) });
const video = (seconds: number): Attachment => ({ kind: "video", mime: "video/mp4", bytes: mp4(seconds) });
const SPANISH = { AIResponseLanguage: "Spanish" };

const TYPE_IT = `so please type what you're looking for, for example "2 bedroom apartments for rent".`;
const ANSWERING = "so I'll answer your written message.";
const ESCRIBE = `así que escríbeme qué buscas, por ejemplo "apartamentos de 2 habitaciones en alquiler".`;
const RESPONDO = "así que respondo a tu mensaje escrito.";

describe("embedded engine: media without a written message", () => {
  const cases: [string, Attachment[], string][] = [
    ["a photo", photos(1), `I received a photo. I can't look at photos offline, ${TYPE_IT}`],
    ["3 photos", photos(3), `I received 3 photos. I can't look at photos offline, ${TYPE_IT}`],
    [
      "a 12-second WAV",
      [voice(12)],
      `I received a 12-second voice message. I can't listen to recordings offline, ${TYPE_IT}`,
    ],
    ["an MP4 of 3 seconds", [video(3)], `I received a 3-second video. I can't watch videos offline, ${TYPE_IT}`],
  ];

  for (const [what, attachments, answer] of cases) {
    it(`acknowledges ${what}, searches nothing and asks for text`, async () => {
      const result = await ask("", { attachments });
      expect(result.text).toBe(answer);
      expect(result.searches).toEqual([]);
      expect(result.done?.noAnswer).toBe(true);
    });
  }

  it("treats a blank message as none", async () => {
    expect((await ask("  \n", { attachments: photos(2) })).text).toBe(
      `I received 2 photos. I can't look at photos offline, ${TYPE_IT}`,
    );
  });

  it("says minutes and seconds, with the right article", async () => {
    const heard = async (attachment: Attachment) => (await ask("", { attachments: [attachment] })).text.split(".")[0];
    expect(await heard(voice(125))).toBe("I received a 2-minute 5-second voice message");
    expect(await heard(voice(60))).toBe("I received a 1-minute voice message");
    expect(await heard(voice(8))).toBe("I received an 8-second voice message");
    expect(await heard(voice(11))).toBe("I received an 11-second voice message");
    expect(await heard(video(1))).toBe("I received a 1-second video");
    expect(await heard(video(480))).toBe("I received an 8-minute video");
  });

  it("says only what it knows when the length cannot be read", async () => {
    const unreadable: Attachment = { kind: "audio", mime: "audio/wav", bytes: png() };
    const mkv: Attachment = {
      kind: "video",
      mime: "video/x-matroska",
      bytes: new Uint8Array([0x1a, 0x45, 0xdf, 0xa3]),
    };
    expect((await ask("", { attachments: [unreadable] })).text).toBe(
      `I received a voice message. I can't listen to recordings offline, ${TYPE_IT}`,
    );
    expect((await ask("", { attachments: [mkv] })).text).toBe(
      `I received a video. I can't watch videos offline, ${TYPE_IT}`,
    );
  });

  it("names every kind when several arrive together", async () => {
    expect((await ask("", { attachments: [...photos(2), voice(12)] })).text).toBe(
      `I received 2 photos and a 12-second voice message. I can't look at photos or listen to recordings offline, ${TYPE_IT}`,
    );
  });

  it("suggests a question it can answer", async () => {
    const suggested = await ask("2 bedroom apartments for rent");
    expect(suggested.text).toMatch(/^I found 3 matches for apartments for rent with 2\+ bedrooms:/);
    expect(suggested.done?.noAnswer).toBe(false);
    const sugerida = await ask("apartamentos de 2 habitaciones en alquiler", { settings: SPANISH });
    expect(sugerida.text).toMatch(/^Encontré 3 resultados para /);
    expect(sugerida.done?.noAnswer).toBe(false);
  });
});

describe("embedded engine: media with a written message", () => {
  it("acknowledges the photos, then answers the message as it would without them", async () => {
    const plain = await ask("condos in Miami");
    const withPhotos = await ask("condos in Miami", { attachments: photos(3) });
    expect(withPhotos.text).toBe(`I received 3 photos. I can't look at photos offline, ${ANSWERING}\n\n${plain.text}`);
    expect(plain.text).toMatch(/^I found 2 matches for condos in Miami/);
    expect(withPhotos.searches).toEqual(plain.searches);
    expect(withPhotos.done?.noAnswer).toBe(false);
  });

  it("keeps the message's noAnswer: a search that finds nothing stays a fallback", async () => {
    const answer = await ask("condos in Boston", { attachments: [voice(12)] });
    expect(answer.text).toBe(
      `I received a 12-second voice message. I can't listen to recordings offline, ${ANSWERING}\n\n` +
        "Sorry, I couldn't find any condos in Boston. I have listings in Austin, Denver, Miami and San Antonio.",
    );
    expect(answer.done?.noAnswer).toBe(true);
  });

  it("acknowledges a video before a greeting's answer", async () => {
    const answer = await ask("hello", { attachments: [video(3)] });
    expect(answer.text).toBe(
      `I received a 3-second video. I can't watch videos offline, ${ANSWERING}\n\n` +
        "Welcome to Sunrise Realty! Ask me about homes for sale or rent.",
    );
  });

  it("streams the acknowledgement and the answer as fragments of one text", async () => {
    const answer = await ask("homes in Austin", { attachments: photos(1) });
    expect(answer.fragments.length).toBeGreaterThan(3);
    expect(answer.fragments.join("")).toBe(answer.text);
    expect(answer.text.startsWith("I received a photo. ")).toBe(true);
  });
});

describe("embedded engine: media in Spanish", () => {
  it("acknowledges without a written message", async () => {
    const said = async (attachments: Attachment[]) => (await ask("", { attachments, settings: SPANISH })).text;
    expect(await said(photos(2))).toBe(`Recibí 2 fotos. No puedo ver fotos sin conexión, ${ESCRIBE}`);
    expect(await said(photos(1))).toBe(`Recibí una foto. No puedo ver fotos sin conexión, ${ESCRIBE}`);
    expect(await said([voice(12)])).toBe(
      `Recibí un mensaje de voz de 12 segundos. No puedo escuchar grabaciones sin conexión, ${ESCRIBE}`,
    );
    expect(await said([voice(125)])).toMatch(/^Recibí un mensaje de voz de 2 minutos y 5 segundos\. /);
    expect(await said([voice(60)])).toMatch(/^Recibí un mensaje de voz de 1 minuto\. /);
    expect(await said([voice(1)])).toMatch(/^Recibí un mensaje de voz de 1 segundo\. /);
    expect(await said([video(3)])).toBe(`Recibí un video de 3 segundos. No puedo ver videos sin conexión, ${ESCRIBE}`);
    expect(await said([photo, voice(12)])).toBe(
      `Recibí una foto y un mensaje de voz de 12 segundos. No puedo ver fotos ni escuchar grabaciones sin conexión, ${ESCRIBE}`,
    );
  });

  it("acknowledges, then answers the written message", async () => {
    const plain = await ask("condos en Miami", { settings: SPANISH });
    const withPhotos = await ask("condos en Miami", { settings: SPANISH, attachments: photos(2) });
    expect(plain.text).toMatch(/^Encontré 2 resultados/);
    expect(withPhotos.text).toBe(`Recibí 2 fotos. No puedo ver fotos sin conexión, ${RESPONDO}\n\n${plain.text}`);
  });
});
