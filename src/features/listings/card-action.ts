/**
 * The buttons under a listing card besides "Details" (a link to the listing's page, which needs no bridge): each
 * comes back as a tap the bridge answers. "Similar homes" asks the chatbot; "Book a viewing" starts the viewing
 * flow (src/features/viewings/). A type of its own, so that the web widget's browser bundle can name it.
 */
export type CardAction = "similar" | "viewing";
