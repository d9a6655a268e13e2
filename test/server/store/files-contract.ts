import { describe, expect, it } from "vitest";
import { newWorkspace, type StoreGetter, unique } from "./fixtures.js";

/** Uploaded files: pending → uploaded → confirmed, each step once. */
export function filesContract(store: StoreGetter): void {
  describe("files", () => {
    async function pendingFile() {
      const workspace = await newWorkspace(store());
      const input = {
        workspaceId: workspace.id,
        fileName: "façade photo.jpg",
        uploadToken: unique("token"),
        expiresAt: new Date("2030-01-01T00:15:00.250Z"),
      };
      return { input, file: await store().files.create(input) };
    }
    const content = { sha256: "ab".repeat(32), size: 123_456, mime: "image/jpeg" };

    it("creates a pending file and finds it by id", async () => {
      const { input, file } = await pendingFile();

      expect(file).toEqual({
        id: expect.any(Number),
        ...input,
        state: "pending",
        sha256: null,
        size: null,
        mime: null,
        createdAt: expect.any(Date),
      });
      expect(await store().files.byId(file.id)).toEqual(file);
      expect(await store().files.byId(987_654_321)).toBeUndefined();
    });

    it("records the upload of a pending file once", async () => {
      const { file } = await pendingFile();

      expect(await store().files.markUploaded(file.id, content)).toBe(true);
      expect(await store().files.byId(file.id)).toEqual({ ...file, state: "uploaded", ...content });

      expect(await store().files.markUploaded(file.id, { sha256: "cd".repeat(32), size: 1, mime: null })).toBe(false);
      expect(await store().files.byId(file.id)).toEqual({ ...file, state: "uploaded", ...content });
    });

    it("keeps an unidentified MIME type as null", async () => {
      const { file } = await pendingFile();
      await store().files.markUploaded(file.id, { ...content, mime: null });
      expect((await store().files.byId(file.id))?.mime).toBeNull();
    });

    it("confirms an uploaded file once, and nothing else", async () => {
      const { file } = await pendingFile();

      expect(await store().files.confirm(file.id)).toBe(false);
      expect((await store().files.byId(file.id))?.state).toBe("pending");

      await store().files.markUploaded(file.id, content);
      expect(await store().files.confirm(file.id)).toBe(true);
      expect(await store().files.byId(file.id)).toEqual({ ...file, state: "confirmed", ...content });

      expect(await store().files.confirm(file.id)).toBe(false);
      expect(await store().files.markUploaded(file.id, content)).toBe(false);
      expect((await store().files.byId(file.id))?.state).toBe("confirmed");
    });

    it("changes nothing for an unknown file", async () => {
      expect(await store().files.markUploaded(987_654_321, content)).toBe(false);
      expect(await store().files.confirm(987_654_321)).toBe(false);
    });
  });
}
