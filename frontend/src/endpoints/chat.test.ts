import { describe, expect, it } from "vitest";
import { generalKey } from "../ui/fieldErrors";
import { blankChatDraft, chatRequest, chatServerErrors, latencyWords, servesNow, tokenWords, validateChat, type ChatDraft, type Invocation, type Turn } from "./chat";

const result: Invocation = { text: "Hello!", finishReason: "stop", model: "qwen", promptTokens: 12, completionTokens: 3, totalTokens: 15, latencyMs: 84.2, target: "service/vllm-qwen" };
const turns: Turn[] = [
  { role: "user", content: "Hi" },
  { role: "assistant", content: "Hello!", result },
];
const draft = (patch: Partial<ChatDraft> = {}): ChatDraft => ({ ...blankChatDraft(), message: "How are you?", ...patch });

describe("chatRequest", () => {
  it("sends the conversation so far, then the new message, with the defaults left to the server", () => {
    expect(chatRequest(turns, draft({ message: " How are you? " }))).toEqual({
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello!" },
        { role: "user", content: "How are you?" },
      ],
    });
  });

  it("puts the system prompt first, and sends the tokens and temperature given", () => {
    const r = chatRequest([], draft({ system: "Be brief.", maxTokens: "64", temperature: "0.2" }));
    expect(r.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(r.maxTokens).toBe(64);
    expect(r.temperature).toBe(0.2);
  });
});

describe("validateChat", () => {
  it("takes a message", () => {
    expect(validateChat(turns, draft())).toEqual({});
  });

  it.each([
    [{ message: "  " }, "request.messages", /Write a message/],
    [{ maxTokens: "0" }, "request.maxTokens", /1 to 4096/],
    [{ maxTokens: "5000" }, "request.maxTokens", /1 to 4096/],
    [{ temperature: "3" }, "request.temperature", /0 to 2/],
    [{ temperature: "hot" }, "request.temperature", /0 to 2/],
  ] as [Partial<ChatDraft>, string, RegExp][])("%j: at %s", (patch, field, want) => {
    const errors = validateChat(turns, draft(patch));
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]![0]).toMatch(want);
  });

  it("holds a request to 64 messages and 64 KiB of text", () => {
    const long: Turn[] = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? { role: "user", content: "q" } : { role: "assistant", content: "a", result }));
    expect(validateChat(long, draft())["request.messages"]![0]).toMatch(/at most 64 messages .* 65/);
    expect(validateChat([], draft({ message: "é".repeat(33 * 1024) }))["request.messages"]![0]).toMatch(/over the 64 KiB/);
  });
});

describe("chatServerErrors", () => {
  it("says plainly why a VIEWER is refused", () => {
    const errors = [{ message: 'invokeEndpoint needs the OPERATOR role; the token "ci" has VIEWER', extensions: { code: "FORBIDDEN" } }];
    const out = chatServerErrors(errors, "VIEWER");
    expect(out[generalKey]![0]).toMatch(/spends GPU time, so it needs the OPERATOR role; you are signed in as VIEWER/);
    expect(out[generalKey]![1]).toMatch(/needs the OPERATOR role/);
  });

  it("leaves an operator's refusal as the server says it", () => {
    const errors = [{ message: "Service default/x is not endpoint y's", extensions: { code: "CONFLICT" } }];
    expect(chatServerErrors(errors, "OPERATOR")).toEqual({ [generalKey]: ["Service default/x is not endpoint y's"] });
  });

  it("puts errors at the message box, the tokens, the temperature and the business", () => {
    const errors = [
      { message: "too big", extensions: { code: "VALIDATION", field: "request.messages" } },
      { message: "bad role", extensions: { code: "VALIDATION", field: "request.messages.2.role" } },
      { message: "refused", extensions: { code: "VALIDATION", field: "request" } },
      { message: "too many tokens", extensions: { code: "VALIDATION", field: "request.maxTokens" } },
      { message: "no such business", extensions: { code: "VALIDATION", field: "business" } },
      { message: "not ready", extensions: { code: "PRECONDITION", field: "endpointId" } },
    ];
    expect(chatServerErrors(errors, "ADMIN")).toEqual({
      "request.messages": ["too big", "bad role", "refused"],
      "request.maxTokens": ["too many tokens"],
      business: ["no such business"],
      [generalKey]: ["not ready (endpointId)"],
    });
  });
});

describe("words", () => {
  it("says the tokens and the latency", () => {
    expect(tokenWords(result)).toBe("12 prompt + 3 completion = 15 tokens");
    expect(latencyWords(84.2)).toBe("84 ms");
    expect(latencyWords(1236)).toBe("1.24 s");
  });

  it("serves while some replica is ready", () => {
    expect(servesNow({ status: "READY", readyReplicas: 1 })).toBe(true);
    expect(servesNow({ status: "DEGRADED", readyReplicas: 1 })).toBe(true);
    expect(servesNow({ status: "DEPLOYING", readyReplicas: 0 })).toBe(false);
    expect(servesNow({ status: "DELETING", readyReplicas: 1 })).toBe(false);
  });
});
