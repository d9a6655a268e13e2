import { buildWidget } from "../adapters/web/build-widget.js";

/**
 * Before any test: the web widget's bundle, as `npm run build` makes it, so that `/widget.js` and the page at `/`
 * are served by every bridge the tests start (from the sources or as child processes).
 */
export default async function setup(): Promise<void> {
  await buildWidget();
}
