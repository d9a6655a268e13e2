/** The widget's icons, inline SVG paths (nothing is loaded from another host). */
const svg = (path: string, label?: string) =>
  `<svg viewBox="0 0 24 24" aria-hidden="${label ? "false" : "true"}"${label ? ` role="img" aria-label="${label}"` : ""}><path d="${path}"/></svg>`;

export const CHAT_ICON = svg("M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z").replace(
  "<path",
  '<path fill="currentColor"',
);
export const CLOSE_ICON = svg(
  "M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19l5.6-5.6 5.6 5.6 1.4-1.4-5.6-5.6L19 6.4 17.6 5 12 10.6z",
);
export const PERSON_ICON = svg("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm0 2c-3.3 0-8 1.7-8 5v1h16v-1c0-3.3-4.7-5-8-5z");
export const NEW_ICON = svg("M12 5V2L8 6l4 4V7a5 5 0 1 1-5 5H5a7 7 0 1 0 7-7z");
export const SOCIAL_ICONS: Record<"facebook" | "instagram" | "whatsapp", string> = {
  facebook: svg("M14 8h3V4h-3a4 4 0 0 0-4 4v2H8v4h2v8h4v-8h3l1-4h-4V8z"),
  instagram: svg(
    "M7 3h10a4 4 0 0 1 4 4v10a4 4 0 0 1-4 4H7a4 4 0 0 1-4-4V7a4 4 0 0 1 4-4zm5 5a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm5.5-1.5a1 1 0 1 0 0 2 1 1 0 0 0 0-2z",
  ),
  whatsapp: svg(
    "M12 3a9 9 0 0 0-7.8 13.5L3 21l4.6-1.2A9 9 0 1 0 12 3zm4.3 12.2c-.2.5-1 1-1.5 1-.4.1-.9.1-1.5-.1-3-1-4.9-4-5-4.2-.2-.2-1.2-1.5-1.2-2.9S7.8 7 8.1 6.7c.2-.3.5-.3.7-.3h.5c.2 0 .4 0 .6.4l.8 1.9c.1.2.1.3 0 .5l-.4.6c-.1.2-.3.3-.1.6.2.3.8 1.3 1.7 2.1 1.2 1 2.1 1.3 2.4 1.5.3.1.5.1.6-.1l.8-1c.2-.3.4-.2.6-.1l1.8.9c.3.1.4.2.5.3 0 .1 0 .6-.2 1.1z",
  ),
};
export const ATTACH_ICON = svg(
  "M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5H9v9a3 3 0 0 0 6 0V5a4.5 4.5 0 0 0-9 0v11.5a6 6 0 0 0 12 0v-10z",
);
export const MIC_ICON = svg(
  "M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.9V21h2v-3.1a7 7 0 0 0 6-6.9z",
);
