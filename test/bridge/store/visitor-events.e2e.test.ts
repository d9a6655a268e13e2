import { onEveryBackend } from "./backends.js";
import { visitorEventsContract } from "./visitor-events-contract.js";

onEveryBackend("the visitor event log", visitorEventsContract);
