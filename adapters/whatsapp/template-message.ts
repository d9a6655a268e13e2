/** An approved template as configured: its name and the language it was approved in. */
export interface TemplateRef {
  name: string;
  language: string;
}

/**
 * Longest text of one variable: a template's body may hold 1,024 characters once filled in, and the alert template
 * has three variables and its own words (docs/channels.md).
 */
const MAX_PARAMETER_LENGTH = 250;

/**
 * A variable's text as Meta takes it: no newline or tab and never more than four spaces in a row (else error
 * 132018), not empty (a dash stands in), at most {@link MAX_PARAMETER_LENGTH} characters.
 */
export function templateParameter(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  const cut = chars.length <= MAX_PARAMETER_LENGTH ? flat : `${chars.slice(0, MAX_PARAMETER_LENGTH - 1).join("")}…`;
  return cut || "-";
}

/**
 * A template message (Cloud API `type: "template"`): `template` in its language, `parameters` filling its body's
 * variables {{1}}, {{2}}… in order, each made fit by {@link templateParameter}.
 */
export function templateMessage(template: TemplateRef, parameters: readonly string[]): object {
  return {
    type: "template",
    template: {
      name: template.name,
      language: { code: template.language },
      components: [
        {
          type: "body",
          parameters: parameters.map((text) => ({ type: "text", text: templateParameter(text) })),
        },
      ],
    },
  };
}
