import type { ServerResponse } from "node:http";
import { type ServedDownload, type ServeOptions, serveFile } from "./file-downloads.js";

/** What Slack answers a file URL fetched without a valid token: a sign-in page, with status 200. */
const LOGIN_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Slack</title></head>' +
  '<body><form action="/signin" method="post"><h1>Sign in to Slack</h1></form></body></html>';

interface StoredFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  serve: ServeOptions;
}

/** Private files of one workspace, served at /files-pri/<teamId>-<fileId>/[download/]<name> as files.slack.com does. */
export class SlackFiles {
  readonly #teamId: string;
  readonly #files = new Map<string, StoredFile>();
  /** Every file download served, with how many bytes left (a capped client hangs up early). */
  readonly downloads: ServedDownload[] = [];

  constructor(teamId: string) {
    this.#teamId = teamId;
  }

  /** Stores the bytes; returns the file id and the paths of url_private and url_private_download. */
  add(
    bytes: Uint8Array,
    options: { name: string; mimetype: string } & ServeOptions,
  ): { id: string; path: string; downloadPath: string } {
    const id = `F${String(this.#files.size + 1).padStart(10, "0")}`;
    this.#files.set(id, { id, bytes, name: options.name, mimetype: options.mimetype, serve: options });
    const folder = `/files-pri/${this.#teamId}-${id}`;
    const name = encodeURIComponent(options.name);
    return { id, path: `${folder}/${name}`, downloadPath: `${folder}/download/${name}` };
  }

  /** Answers a GET of a file path: the bytes when `authorized`, else the sign-in page; 404 for unknown files. */
  async serve(pathname: string, authorized: boolean, res: ServerResponse): Promise<void> {
    const [, teamId, id, download, name] = /^\/files-pri\/([^/-]+)-([^/]+)\/(download\/)?([^/]+)$/.exec(pathname) ?? [];
    const file = teamId === this.#teamId && id !== undefined ? this.#files.get(id) : undefined;
    if (!file || decodeURIComponent(name ?? "") !== file.name) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found");
    } else if (!authorized) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(LOGIN_PAGE);
    } else {
      const headers = {
        "content-type": file.mimetype,
        ...(download && { "content-disposition": `attachment; filename="${encodeURIComponent(file.name)}"` }),
      };
      await serveFile(res, file.id, file.bytes, headers, this.downloads, file.serve);
    }
  }
}
