import { Router } from "express";
import { ApiError } from "../http/api-error.js";
import { sendData } from "../http/envelope.js";
import { strictRoutes } from "../http/methods.js";
import { operation } from "../http/operation.js";
import { confirmUploadSchema, preUploadSchema } from "../schemas/files.js";
import { parseRequest } from "../schemas/parse-request.js";
import { type FileService, UPLOAD_CONFIRM_PATH, UPLOAD_PATH } from "../services/files.js";
import type { ApiStore } from "../store/api-store.js";

/**
 * The hosted platform's three-step upload: `GetPreUploadUrl` → `PUT` of the raw bytes to the returned
 * single-use URL (valid 5 minutes, no API key: the token in the URL is the credential) → `UploadSuccess`.
 * `publicUrl` makes the upload URL absolute; without it the request's own host is used.
 */
export function fileRoutes(store: ApiStore, files: FileService, publicUrl: string | undefined): Router {
  const router = Router();
  const routes = strictRoutes(router);
  routes.post(
    "/User/GetPreUploadUrl",
    operation(store, "GetPreUploadUrl", ["secret"], async ({ body, workspace, req }) => {
      const { fileName } = parseRequest(preUploadSchema, body);
      return files.preUpload(workspace, fileName, publicUrl ?? `${req.protocol}://${req.get("host")}`);
    }),
  );
  routes.put(`${UPLOAD_PATH.replace("/chat", "")}/:id`, async (req, res) => {
    const id = Number(req.params.id);
    const token = typeof req.query.token === "string" ? req.query.token : "";
    if (!Number.isSafeInteger(id) || !token) throw new ApiError(404, "Unknown upload URL");
    const length = req.get("content-length");
    await files.receive(id, token, req, length === undefined ? undefined : Number(length));
    sendData(res, true);
  });
  routes.post(
    UPLOAD_CONFIRM_PATH.replace("/chat", ""),
    operation(store, "UploadSuccess", ["secret"], async ({ body, workspace }) => {
      await files.confirm(workspace, parseRequest(confirmUploadSchema, body).FileStoreId);
      return true;
    }),
  );
  return router;
}
