import { escapeWebHtml as escapeHtml } from "./format-inline.js";

/**
 * The bridge's own web chat page at `/`: the same widget a site embeds (`/widget.js`), drawn over the whole page
 * (`data-mode="page"`), so the page and the embedded widget are one code. Without a built widget the page says how
 * to build it instead of showing an empty screen.
 */
export function webChatPage(title: string, serialNumber: string | undefined, built: boolean): string {
  const chatbot = serialNumber ? ` data-chatbot="${escapeHtml(serialNumber)}"` : "";
  const body = built
    ? `<script src="/widget.js"${chatbot} data-mode="page" async></script>
<noscript>The chat needs JavaScript.</noscript>`
    : "<p>The web chat's widget was not built: run <code>npm run build</code>, then start chatbridge again.</p>";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath fill='%232563eb' d='M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z'/%3E%3C/svg%3E">
<style>html, body { margin: 0; height: 100%; } body { font-family: system-ui, sans-serif; }</style>
</head>
<body>
<main aria-label="${escapeHtml(title)}">
${body}
</main>
</body>
</html>`;
}
