import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useMutation } from "urql";
import { useSession } from "../app/session";
import type { EndpointDetailFragment } from "../gql/graphql";
import { errorMessages } from "../ui/feedback";
import { Field, FormErrors } from "../ui/Field";
import { clearField, generalKey, hasErrors, type FieldErrors } from "../ui/fieldErrors";
import { GuardedButton } from "../ui/GuardedButton";
import { blankChatDraft, chatPaths, chatRequest, chatServerErrors, latencyWords, servesNow, tokenWords, validateChat, type ChatDraft, type Turn } from "./chat";
import { InvokeEndpointMutation } from "./documents";
import { poolBusinesses } from "./endpointActions";

/**
 * A chat with the endpoint (invokeEndpoint): each message goes with the
 * conversation so far, and each answer shows its token counts and latency.
 * The conversation stays on the page until it is cleared or the page left.
 */
export function ChatCard({ endpoint }: { endpoint: EndpointDetailFragment }) {
  const { me } = useSession();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState<ChatDraft>(blankChatDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [optionsOpen, setOptionsOpen] = useState(false);
  const [{ fetching }, invoke] = useMutation(InvokeEndpointMutation);
  const headingId = useId();
  const logRef = useRef<HTMLOListElement>(null);
  const pool = endpoint.serviceForm === "MODEL_POOL";
  const businesses = pool ? poolBusinesses(endpoint.pods) : [];

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [turns]);

  const change = (patch: Partial<ChatDraft>, path: string) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => clearField(clearField(e, path), generalKey));
  };

  const send = async () => {
    const found = validateChat(turns, draft);
    if (hasErrors(found)) {
      setErrors(found);
      if (found[chatPaths.maxTokens] || found[chatPaths.temperature]) setOptionsOpen(true);
      return;
    }
    setErrors({});
    const message = draft.message.trim();
    const business = pool && draft.business !== "" ? draft.business : null;
    const r = await invoke({ endpointId: endpoint.id, request: chatRequest(turns, draft), business });
    if (r.data) {
      const result = r.data.invokeEndpoint;
      setTurns((t) => [...t, { role: "user", content: message }, { role: "assistant", content: result.text, result }]);
      setDraft((d) => ({ ...d, message: "" }));
    } else if (r.error) {
      const found = r.error.graphQLErrors.length > 0 ? chatServerErrors(r.error.graphQLErrors, me.role) : { [generalKey]: errorMessages(r.error) };
      setErrors(found);
      if (found[chatPaths.maxTokens] || found[chatPaths.temperature] || found[chatPaths.business]) setOptionsOpen(true);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send();
  };
  // Enter sends, Shift+Enter starts a new line.
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      if (!fetching) void send();
    }
  };

  const notServing = servesNow(endpoint) ? undefined : `No replica serves yet: the endpoint is ${endpoint.status}.`;
  return (
    <section className="card chat" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>Chat</h2>
        {turns.length > 0 && (
          <button type="button" className="button button-quiet" onClick={() => setTurns([])} disabled={fetching}>
            Start a new conversation
          </button>
        )}
      </div>
      <p className="muted">
        Each message goes to the endpoint through the cluster's Kubernetes API with the conversation so far, as an OpenAI-style chat completion.
        It spends GPU time.
      </p>
      {turns.length > 0 && (
        <ol className="chat-log" ref={logRef} aria-label="Conversation">
          {turns.map((t, i) =>
            t.role === "user" ? (
              <li key={i} className="chat-turn chat-user" data-role="user">
                <span className="chat-who">You</span>
                <p className="chat-text">{t.content}</p>
              </li>
            ) : (
              <li key={i} className="chat-turn chat-assistant" data-role="assistant">
                <span className="chat-who">{t.result.model ?? endpoint.name}</span>
                <p className="chat-text">{t.content}</p>
                <p className="chat-meta">
                  <span className="chat-tokens">{tokenWords(t.result)}</span> · <span className="chat-latency">{latencyWords(t.result.latencyMs)}</span>
                  {t.result.finishReason && <> · finish reason: {t.result.finishReason}</>} · via <code>{t.result.target}</code>
                </p>
              </li>
            ),
          )}
        </ol>
      )}
      <form onSubmit={submit} noValidate aria-busy={fetching}>
        <FormErrors title="No answer" messages={errors[generalKey]} />
        <Field path={chatPaths.message} label="Message" errors={errors} hint="Enter sends; Shift+Enter starts a new line.">
          {(props) => (
            <textarea
              {...props}
              rows={3}
              placeholder="Ask the model something"
              value={draft.message}
              onChange={(e) => change({ message: e.target.value }, chatPaths.message)}
              onKeyDown={onKeyDown}
            />
          )}
        </Field>
        <details className="advanced chat-options" open={optionsOpen} onToggle={(e) => setOptionsOpen(e.currentTarget.open)}>
          <summary>Options: system prompt, tokens, temperature{pool ? ", business" : ""}</summary>
          <Field path="request.system" label="System prompt (optional)" errors={errors} hint="Sent first with every message of the conversation.">
            {(props) => <textarea {...props} rows={2} value={draft.system} onChange={(e) => change({ system: e.target.value }, "request.system")} />}
          </Field>
          <div className="group-grid">
            <Field path={chatPaths.maxTokens} label="Most tokens (optional)" errors={errors} hint="1 to 4096; empty for 256.">
              {(props) => <input {...props} type="number" inputMode="numeric" min={1} max={4096} step={1} placeholder="256" value={draft.maxTokens} onChange={(e) => change({ maxTokens: e.target.value }, chatPaths.maxTokens)} />}
            </Field>
            <Field path={chatPaths.temperature} label="Temperature (optional)" errors={errors} hint="0 to 2; empty for the server's.">
              {(props) => <input {...props} type="number" inputMode="decimal" min={0} max={2} step={0.1} value={draft.temperature} onChange={(e) => change({ temperature: e.target.value }, chatPaths.temperature)} />}
            </Field>
          </div>
          {pool && (
            <Field path={chatPaths.business} label="Business" errors={errors} hint="Whose Service to call; any ready worker of the pool when none is chosen.">
              {(props) => (
                <select {...props} value={draft.business} onChange={(e) => change({ business: e.target.value }, chatPaths.business)}>
                  <option value="">Any ready worker</option>
                  {businesses.map((b) => (
                    <option key={b} value={b}>
                      {b}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
        </details>
        <div className="form-actions">
          <GuardedButton type="submit" className="button button-primary" deniedReason={notServing} disabled={fetching}>
            {fetching ? "Waiting for the answer…" : "Send"}
          </GuardedButton>
        </div>
      </form>
    </section>
  );
}
