// Synthetic session events in the shapes a real DSH host commits (dsh-host.md Appendix A.2–A.5),
// for feeding the turn buffer, capture and recall without a host.
import type { HostSession, SessionEvent, UserMessage } from "../../../plugin/host-types";

export const PROVIDER = "deepseek-official";
export const MODEL = "deepseek-v4-flash";

export function hostSession(id: string, header: Partial<HostSession["header"]> = {}): HostSession {
  return { header: { id, createdAt: 0, cwd: "/home/ada/project", ...header } };
}

/** Numbers events like the session log and stamps each with the clock it is handed. */
export class EventLog {
  private seq = 0;
  readonly events: SessionEvent[] = [];

  constructor(public timeMs = 1_000) {}

  /** Appends an event one millisecond after the previous one. */
  add(type: string, data?: Record<string, unknown>): SessionEvent {
    const event: SessionEvent = { type, seq: this.seq++, time: this.timeMs++, data };
    this.events.push(event);
    return event;
  }

  turnStart(turn: number): SessionEvent {
    return this.add("turn/start", { turn });
  }

  stepStart(turn: number, step: number): SessionEvent {
    return this.add("step/start", { turn, step });
  }

  stepEnd(turn: number, step: number): SessionEvent {
    return this.add("step/end", { turn, step });
  }

  /** `event.data` *is* the message (A.5). */
  userMessage(text: string): SessionEvent {
    return this.add("user/message", { ...message(text, { kind: "user" }) });
  }

  /** The runtime-context snapshot the system-prompt plugin injects on turn 1 (A.2 item 9). */
  pluginSnapshot(): SessionEvent {
    const source = {
      kind: "plugin",
      plugin: "@deepseek-ai/dsh-system-prompt",
      form: "snapshot",
      sections: [{ name: "sandbox:policy", text: "workspace-write" }],
    };
    return this.add("user/message", { ...message("<runtime-context>sandbox: workspace-write</runtime-context>", source) });
  }

  /** Our own recall message, as it comes back through the session log. */
  ownRecall(text: string): SessionEvent {
    return this.add("user/message", { ...message(text, { kind: "dsh-dream", form: "recall", receipt: "rcpt-1" }) });
  }

  assistantText(turn: number, step: number, text: string): SessionEvent {
    return this.assistant(turn, step, [{ type: "text", text }]);
  }

  /** A tool-call step: content types ['tool-call'] and no text (A.3). */
  assistantToolCall(turn: number, step: number, name: string): SessionEvent {
    return this.assistant(turn, step, [{ type: "tool-call", callId: `call-${step}`, name, arguments: "{}" }]);
  }

  toolCall(turn: number, step: number, name: string): SessionEvent {
    return this.add("tool/call", { turn, step, callId: `call-${step}`, name, arguments: '{"file_path":"README.md"}' });
  }

  toolResult(turn: number, step: number, text: string): SessionEvent {
    return this.add("tool/result", {
      turn,
      step,
      message: { role: "user", source: { kind: "tool", callId: `call-${step}` }, content: [{ type: "tool-result", callId: `call-${step}`, output: text }] },
      meta: {},
    });
  }

  turnEnd(turn: number, kind = "completed"): SessionEvent {
    return this.add("turn/end", { turn, reason: kind === "error" ? { kind, error: { message: "401", code: "AUTH", status: 401 } } : { kind } });
  }

  /** The one-shot turn of A.2 up to step/end: user prompt, runtime snapshot, one text reply. */
  simpleTurn(turn: number, user: string, reply: string): void {
    this.turnStart(turn);
    this.stepStart(turn, 1);
    this.userMessage(user);
    if (turn === 1) this.pluginSnapshot();
    this.assistantText(turn, 1, reply);
    this.stepEnd(turn, 1);
  }

  private assistant(turn: number, step: number, content: Array<Record<string, unknown>>): SessionEvent {
    return this.add("assistant/message", {
      turn,
      step,
      message: { role: "assistant", id: `a-${turn}-${step}`, content, source: { kind: "model", provider: PROVIDER, model: MODEL } },
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  }
}

let messageCount = 0;

export function message(text: string, source: UserMessage["source"]): UserMessage {
  return { id: `msg-${++messageCount}`, role: "user", content: [{ type: "text", text }], source };
}
