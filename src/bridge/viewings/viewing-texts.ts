/** What the bot says in the viewing flow (in English: the flow's words are the bridge's, not the chatbot's). */
export const VIEWING_TEXTS = {
  /** The question a tap on "Book a viewing" asks. */
  askTime: (place: string) =>
    `When would you like to visit ${place}? For example: Saturday morning, or 12 May at 10:00.`,
  /** Asked when the channel gives no way to reach the user (a web chat visitor). */
  askContact: "How can the agency reach you to confirm the viewing? Please write your e-mail address or phone number.",
  /** The answer to the contact question was neither. */
  contactAgain: 'That doesn\'t look like an e-mail address or a phone number. Please write one, or "cancel" to stop.',
  /** The mail was accepted by the mail server. */
  sent: (when: string) => `Thanks! I've passed your request for ${when} to the agency; they will confirm with you.`,
  /** The mail could only be queued: it will go out, but has not yet. */
  queued: (when: string) =>
    `Thanks! I couldn't reach the agency right away, but your request for ${when} is saved and will be sent as soon as possible; they will confirm with you.`,
  /** No mail server or no address, or the mail was refused: nobody will hear of the request. */
  unreachable:
    "Sorry, I couldn't pass your request on: no one at the agency can be reached from here right now. Please try again later or contact the agency directly.",
  /** The user left the flow with "cancel". */
  cancelled: "OK, I've cancelled the viewing request.",
};
