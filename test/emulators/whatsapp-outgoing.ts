import { invalidParameter } from "./whatsapp-errors.js";

type Json = Record<string, unknown>;

/** A media object of a send: an uploaded media `id` or a public `link`. */
export interface OutgoingMedia {
  id?: string;
  link?: string;
  caption?: string;
  filename?: string;
}

/** A template send: the template's name and language, and the texts of its body's variables in order. */
export interface OutgoingTemplate {
  name: string;
  language: string;
  parameters: string[];
}

/** What a POST /<phone number id>/messages body asks for, once valid. */
export type Outgoing =
  | { kind: "read"; messageId: string; typing: boolean }
  | {
      kind: "message";
      /** As given, for contacts[].input. */
      input: string;
      /** The digits of `to`, as wa_id. */
      waId: string;
      type: string;
      text?: string;
      interactive?: unknown;
      media?: OutgoingMedia;
      template?: OutgoingTemplate;
      replyTo?: string;
    };

/**
 * Limits from Meta's send-message references (text 4096; captions 1024; reply buttons: at most 3, titles 20, body
 * 1024; lists: button 20, 10 sections, 10 rows in all, row titles 24, descriptions 72, body 4096; footers 60).
 */
const MAX = {
  text: 4096,
  caption: 1024,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  buttonBody: 1024,
  listBody: 4096,
  listButton: 20,
  sections: 10,
  rows: 10,
  sectionTitle: 24,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
  footer: 60,
  headerText: 60,
};

/** Header types of a reply-button message; lists take a text header only. */
const HEADER_MEDIA = new Set(["image", "video", "document"]);

const MEDIA_TYPES = new Set(["image", "audio", "document"]);

/** Reads a send's JSON body; throws Graph's code 100 naming the first bad field. */
export function parseOutgoing(body: unknown): Outgoing {
  const params = object(body, "body");
  if (params.messaging_product !== "whatsapp") throw invalidParameter('messaging_product must be "whatsapp"');
  if (params.status !== undefined) return readReceipt(params);

  const input = string(params.to, "to", Number.POSITIVE_INFINITY);
  // Meta accepts "+1 555-000 2222" and answers with the bare digits as wa_id.
  const waId = input.replace(/\D/g, "");
  if (waId === "") throw invalidParameter("to must be a phone number");
  if (params.recipient_type !== undefined && params.recipient_type !== "individual") {
    throw invalidParameter('recipient_type must be "individual"');
  }
  // "type" defaults to text in the Cloud API.
  const type = params.type ?? "text";
  const replyTo =
    params.context === undefined
      ? undefined
      : string(object(params.context, "context").message_id, "context.message_id", Number.POSITIVE_INFINITY);
  const message = { kind: "message" as const, input, waId, replyTo };
  if (type === "text") {
    const text = object(params.text, "text");
    if (text.preview_url !== undefined && typeof text.preview_url !== "boolean") {
      throw invalidParameter("text.preview_url must be a boolean");
    }
    return { ...message, type, text: string(text.body, "text.body", MAX.text) };
  }
  if (type === "interactive") return { ...message, type, interactive: interactive(params.interactive) };
  if (typeof type === "string" && MEDIA_TYPES.has(type)) return { ...message, type, media: media(params[type], type) };
  if (type === "template") return { ...message, type, template: template(params.template) };
  // Other types exist (video, sticker, location, …); this emulator does not serve them.
  throw invalidParameter(`type ${JSON.stringify(type)} is not supported`);
}

/** `status: "read"` marks a message (and those before it) read, and may show the typing indicator. */
function readReceipt(params: Json): Outgoing {
  if (params.status !== "read") throw invalidParameter('status must be "read"');
  const messageId = string(params.message_id, "message_id", Number.POSITIVE_INFINITY);
  if (params.typing_indicator !== undefined && object(params.typing_indicator, "typing_indicator").type !== "text") {
    throw invalidParameter('typing_indicator.type must be "text"');
  }
  return { kind: "read", messageId, typing: params.typing_indicator !== undefined };
}

function interactive(value: unknown): Json {
  const interactive = object(value, "interactive");
  const action = object(interactive.action, "interactive.action");
  const body = object(interactive.body, "interactive.body");
  if (interactive.footer !== undefined) {
    string(object(interactive.footer, "interactive.footer").text, "interactive.footer.text", MAX.footer);
  }
  if (interactive.header !== undefined) header(interactive.header, interactive.type === "button");
  if (interactive.type === "button") {
    string(body.text, "interactive.body.text", MAX.buttonBody);
    const buttons = array(action.buttons, "interactive.action.buttons", MAX.buttons);
    const ids = buttons.map((button, i) => {
      const field = `interactive.action.buttons[${i}]`;
      const { type, reply } = object(button, field);
      if (type !== "reply") throw invalidParameter(`${field}.type must be "reply"`);
      const { id, title } = object(reply, `${field}.reply`);
      string(title, `${field}.reply.title`, MAX.buttonTitle);
      return string(id, `${field}.reply.id`, MAX.buttonId);
    });
    if (new Set(ids).size < ids.length) throw invalidParameter("interactive.action.buttons ids must be unique");
  } else if (interactive.type === "list") {
    string(body.text, "interactive.body.text", MAX.listBody);
    string(action.button, "interactive.action.button", MAX.listButton);
    const sections = array(action.sections, "interactive.action.sections", MAX.sections);
    const rows = sections.flatMap((section, i) => {
      const field = `interactive.action.sections[${i}]`;
      const { title, rows } = object(section, field);
      // A title is required only when there are several sections.
      if (title !== undefined || sections.length > 1) string(title, `${field}.title`, MAX.sectionTitle);
      return array(rows, `${field}.rows`, MAX.rows).map((row, j) => ({ row, field: `${field}.rows[${j}]` }));
    });
    if (rows.length > MAX.rows)
      throw invalidParameter(`interactive.action.sections must hold at most ${MAX.rows} rows`);
    for (const { row, field } of rows) {
      const { id, title, description } = object(row, field);
      string(id, `${field}.id`, MAX.rowId);
      string(title, `${field}.title`, MAX.rowTitle);
      if (description !== undefined) string(description, `${field}.description`, MAX.rowDescription);
    }
  } else {
    // cta_url, flow, product lists and the like exist too; this emulator serves buttons and lists only.
    throw invalidParameter(`interactive.type ${JSON.stringify(interactive.type)} is not supported`);
  }
  return interactive;
}

/**
 * A template send's `template`: name, `language.code` and the text variables of its `body` component (header and
 * button components, and other parameter types, are not served by this emulator).
 */
function template(value: unknown): OutgoingTemplate {
  const { name, language, components } = object(value, "template");
  const code = object(language, "template.language").code;
  const parameters = (components === undefined ? [] : array(components, "template.components", 10)).flatMap(
    (component, i) => {
      const field = `template.components[${i}]`;
      const { type, parameters } = object(component, field);
      if (type !== "body") throw invalidParameter(`${field}.type ${JSON.stringify(type)} is not supported`);
      return array(parameters, `${field}.parameters`, 100).map((parameter, j) => {
        const { type, text } = object(parameter, `${field}.parameters[${j}]`);
        if (type !== "text") throw invalidParameter(`${field}.parameters[${j}].type must be "text"`);
        return string(text, `${field}.parameters[${j}].text`, 32_768);
      });
    },
  );
  return {
    name: string(name, "template.name", 512),
    language: string(code, "template.language.code", 16),
    parameters,
  };
}

/**
 * An interactive message's header: text (up to 60 characters), or for reply buttons an image, video or document
 * given by uploaded `id` or public `link`, as a media message's object.
 */
function header(value: unknown, mediaAllowed: boolean): void {
  const { type, text, ...rest } = object(value, "interactive.header");
  if (type === "text") {
    string(text, "interactive.header.text", MAX.headerText);
    return;
  }
  if (!mediaAllowed || typeof type !== "string" || !HEADER_MEDIA.has(type)) {
    throw invalidParameter(`interactive.header.type ${JSON.stringify(type)} is not supported here`);
  }
  const { id, link } = object(rest[type], `interactive.header.${type}`);
  if ((id === undefined) === (link === undefined)) {
    throw invalidParameter(`interactive.header.${type} needs exactly one of id and link`);
  }
  if (link !== undefined && !/^https?:\/\/\S+$/i.test(String(link))) {
    throw invalidParameter(`interactive.header.${type}.link must be an http(s) URL`);
  }
}

function media(value: unknown, type: string): OutgoingMedia {
  const { id, link, caption, filename } = object(value, type);
  if ((id === undefined) === (link === undefined)) throw invalidParameter(`${type} needs exactly one of id and link`);
  const limitless = Number.POSITIVE_INFINITY;
  return {
    ...(id !== undefined && { id: string(id, `${type}.id`, limitless) }),
    ...(link !== undefined && { link: string(link, `${type}.link`, limitless) }),
    // Audio takes no caption.
    ...(caption !== undefined && type !== "audio" && { caption: string(caption, `${type}.caption`, MAX.caption) }),
    ...(filename !== undefined && type === "document" && { filename: string(filename, `${type}.filename`, limitless) }),
  };
}

function object(value: unknown, field: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidParameter(`${field} must be an object`);
  }
  return value as Json;
}

/** A non-empty string of at most `max` characters (code points). */
function string(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value === "") throw invalidParameter(`${field} is required`);
  if ([...value].length > max) throw invalidParameter(`${field} must be at most ${max} characters long`);
  return value;
}

/** An array of 1 to `max` items. */
function array(value: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidParameter(`${field} must be a non-empty array`);
  if (value.length > max) throw invalidParameter(`${field} must hold at most ${max} items`);
  return value;
}
