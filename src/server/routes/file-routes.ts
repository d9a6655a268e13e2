import { Router } from "express";
import { API_ROOT, OPERATIONS } from "../../api/operations.js";
import { ApiError } from "../http/api-error.js";
import { sendData } from "../http/envelope.js";
import { strictRoutes } from "../http/methods.js";
import { serveOperation } from "../http/operation.js";
import { type FileService, UPLOAD_PATH } from "../services/files.js";
import type { ApiStore } from "../store/api-store.js";

/**
 * The hosted platform's three-step upload: `GetPreUploadUrl` → `PUT` of the raw bytes to the returned
 * single-use URL (valid 5 minutes, no API key: the token in the URL is the credential) → `UploadSuccess`.
 * `publicUrl` makes the upload URL absolute; without it the request's own host is used.
 */
export function fileRoutes(store: ApiStore, files: FileService, publicUrl: string | undefined): Router {
  const router = Router();
  const routes = strictRoutes(router);
  serveOperation(routes, store, OPERATIONS.preUpload, async ({ input, workspace, req }) => {
    return files.preUpload(workspace, input.fileName, publicUrl ?? `${req.protocol}://${req.get("host")}`);
  });
  routes.put(`${UPLOAD_PATH.slice(API_ROOT.length)}/:id`, async (req, res) => {
    const id = Number(req.params.id);
    const token = typeof req.query.token === "string" ? req.query.token : "";
    if (!Number.isSafeInteger(id) || !token) throw new ApiError(404, "Unknown upload URL");
    const length = req.get("content-length");
    await files.receive(id, token, req, length === undefined ? undefined : Number(length));
    sendData(res, true);
  });
  serveOperation(routes, store, OPERATIONS.confirmUpload, async ({ input, workspace }) => {
    await files.confirm(workspace, input.FileStoreId);
    return true;
  });
  return router;
}
