import { z } from "zod";

const email = z.email();

/**
 * Whether `contact` is how a person can be reached: an e-mail address, or a phone number as people write it (7 to
 * 15 digits, a leading +, spaces, dots, dashes and parentheses). The web chat's contact form and the viewing flow
 * accept the same.
 */
export function isContact(contact: string): boolean {
  const trimmed = contact.trim();
  if (trimmed.length > 254) return false;
  return (
    email.safeParse(trimmed).success ||
    (/^\+?[\d\s().-]{7,20}$/.test(trimmed) && /^\d{7,15}$/.test(trimmed.replace(/\D/g, "")))
  );
}

/** A `mailto:` or `tel:` link to a contact {@link isContact} accepts. */
export function contactLink(contact: string): string {
  return contact.includes("@") ? `mailto:${contact}` : `tel:${contact.replace(/[^\d+]/g, "")}`;
}
