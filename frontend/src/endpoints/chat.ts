// The chat on an endpoint's page: the conversation so far (each message
// sent and each answer, with its token counts and latency), the request
// invokeEndpoint takes for the next message, the limits the server holds a
// request to, and what its refusals say.
import type { ChatRequestInput, InvokeEndpointMutation, Role } from "../gql/graphql";
import { addError, generalKey, parseWhole, sortServerErrors, type FieldErrors, type ServerError } from "../ui/fieldErrors";

export type Invocation = InvokeEndpointMutation["invokeEndpoint"];

/** One turn of the conversation: a message sent, or the answer to it. */
export type Turn = { role: "user"; content: string } | { role: "assistant"; content: string; result: Invocation };

export interface ChatDraft {
  /** The system prompt; empty for none. */
  system: string;
  message: string;
  /** Empty for the server's default, 256. */
  maxTokens: string;
  /** Empty for the server's default. */
  temperature: string;
  /** MODEL_POOL: the business whose Service to call; empty for any ready worker. */
  business: string;
}

export const chatPaths = {
  message: "request.messages",
  maxTokens: "request.maxTokens",
  temperature: "request.temperature",
  business: "business",
} as const;

export function blankChatDraft(): ChatDraft {
  return { system: "", message: "", maxTokens: "", temperature: "", business: "" };
}

/** The server's bounds on one request. */
export const chatLimits = { messages: 64, bytes: 64 * 1024, maxTokens: 4096, temperature: 2 } as const;

/** The messages of the request for the next message: the system prompt, the conversation so far, then the new message. */
export function chatMessages(turns: readonly Turn[], draft: ChatDraft): ChatRequestInput["messages"] {
  const out: ChatRequestInput["messages"] = [];
  if (draft.system.trim() !== "") out.push({ role: "system", content: draft.system.trim() });
  for (const t of turns) out.push({ role: t.role, content: t.content });
  out.push({ role: "user", content: draft.message.trim() });
  return out;
}

/** The invokeEndpoint request for the next message. */
export function chatRequest(turns: readonly Turn[], draft: ChatDraft): ChatRequestInput {
  const request: ChatRequestInput = { messages: chatMessages(turns, draft) };
  const maxTokens = parseWhole(draft.maxTokens);
  if (maxTokens !== null) request.maxTokens = maxTokens;
  if (draft.temperature.trim() !== "") request.temperature = Number(draft.temperature.trim());
  return request;
}

/** The text's size as the server counts it: UTF-8 bytes. */
function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** The checks the server makes on a request: a message, at most 64 of them and 64 KiB of text, the tokens and temperature in bounds. */
export function validateChat(turns: readonly Turn[], draft: ChatDraft): FieldErrors {
  const errors: FieldErrors = {};
  if (draft.message.trim() === "") addError(errors, chatPaths.message, "Write a message to send.");
  else {
    const messages = chatMessages(turns, draft);
    if (messages.length > chatLimits.messages) {
      addError(errors, chatPaths.message, `A request holds at most ${chatLimits.messages} messages and this one would hold ${messages.length}: start a new conversation.`);
    } else {
      const bytes = messages.reduce((n, m) => n + utf8Bytes(m.content), 0);
      if (bytes > chatLimits.bytes) addError(errors, chatPaths.message, `The conversation holds ${bytes} bytes of text, over the 64 KiB a request may send: shorten the message or start a new conversation.`);
    }
  }
  const maxText = draft.maxTokens.trim();
  if (maxText !== "") {
    const n = parseWhole(maxText);
    if (n === null || n < 1 || n > chatLimits.maxTokens) addError(errors, chatPaths.maxTokens, `Generate 1 to ${chatLimits.maxTokens} tokens, or leave it empty for 256.`);
  }
  const tempText = draft.temperature.trim();
  if (tempText !== "") {
    const t = Number(tempText);
    if (!Number.isFinite(t) || t < 0 || t > chatLimits.temperature) addError(errors, chatPaths.temperature, "The temperature is 0 to 2, or empty for the server's.");
  }
  return errors;
}

/** What a refusal for want of a role says: calling an endpoint spends GPU time. */
export function forbiddenWords(role: Role): string {
  return `Calling an endpoint spends GPU time, so it needs the OPERATOR role; you are signed in as ${role}. Ask an admin for an OPERATOR token to chat with it.`;
}

/**
 * Sorts invokeEndpoint's errors onto the chat's fields: the tokens, the
 * temperature, the business; one about the messages at the message box.
 * A FORBIDDEN refusal for a role below OPERATOR says why in words first.
 */
export function chatServerErrors(errors: readonly ServerError[], role: Role): FieldErrors {
  const out = sortServerErrors(errors, (field) => {
    if (field === chatPaths.message || field.startsWith(`${chatPaths.message}.`) || field === "request") return chatPaths.message;
    if (field === chatPaths.maxTokens || field === chatPaths.temperature || field === chatPaths.business) return field;
    return generalKey;
  });
  if (role !== "OPERATOR" && role !== "ADMIN" && errors.some((e) => e.extensions?.code === "FORBIDDEN")) {
    out[generalKey] = [forbiddenWords(role), ...(out[generalKey] ?? [])];
  }
  return out;
}

/** "12 prompt + 34 completion = 46 tokens". */
export function tokenWords(r: Pick<Invocation, "promptTokens" | "completionTokens" | "totalTokens">): string {
  return `${r.promptTokens} prompt + ${r.completionTokens} completion = ${r.totalTokens} ${r.totalTokens === 1 ? "token" : "tokens"}`;
}

/** A round trip as people read it: 850 ms, 1.24 s. */
export function latencyWords(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Whether an endpoint can answer now: some replica is ready, and it is not being removed. */
export function servesNow(e: { status: string; readyReplicas: number }): boolean {
  return (e.status === "READY" || e.status === "DEGRADED") && e.readyReplicas > 0;
}
