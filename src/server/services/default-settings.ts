import type { StoredSettings } from "../domain.js";

/**
 * Settings of a new chatbot. RateLimitCount 0 means no rate limit (the owner turns it on with Edit), and
 * MessageLimit -1 means unlimited, as the spec says.
 */
export function defaultSettings(input: { timeZone: string; model: string }): StoredSettings {
  return {
    Name: "Assistant",
    Model: input.model,
    SystemMessage: "You are a helpful real-estate assistant. Answer briefly and only from the listings you know.",
    Temperature: 0,
    TimeZone: input.timeZone,
    AnswerSuffix: "",
    ChatProfilePicture: "",
    ChatIcon: "",
    ChatBubbleAlign: 0,
    ChatBubbleColor: "rgb(37,99,235)",
    ChatbotPopupOnce: false,
    ChatbotPrivacyPolicyDescription: "",
    ChatbotPrivacyPolicyName: "",
    ChatbotPrivacyPolicyUrl: "",
    EnablePushToTalk: false,
    EnableUploadImage: true,
    FacebookUrl: "",
    InstagramUrl: "",
    WhatsappUrl: "",
    RemoveChatLogOnBrowserClose: false,
    SuggestedMessage: "",
    TalkToHumanEmail: "",
    TalkToHumanResponseMessage: "Thanks! A member of our team will get back to you by e-mail shortly.",
    UserInputPlaceholder: "Ask about our homes…",
    UserMessageColor: "rgb(255,255,255)",
    WelcomeMessage: "Hi! How can I help you find a home today?",
    VerifyDomain: false,
    Domains: "",
    CustomDomain: "",
    RateLimitCount: 0,
    RateLimitTime: 60,
    RateLimitMessage: "You are sending messages too fast. Please wait a moment and try again.",
    EmailForDailyChatLogs: "",
    EmailForDailyLeads: "",
    AIResponseLanguage: "English",
    MessageLimit: -1,
  };
}
