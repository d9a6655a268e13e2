/** Hides the password of a URL (`redis://user:secret@host` → `redis://user:***@host`) so it can be shown. */
export function maskPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}
