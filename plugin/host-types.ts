// Our own structural view of the DSH host (Cordis context, agents, sessions, tools, web server),
// written from the published 0.1.x/0.2 .d.ts files. The plugin imports no @deepseek-ai package at
// runtime: a static import of a version-fragile host package is a boot failure when it moves.
import type { IncomingMessage, ServerResponse } from "node:http";

export type Disposer = () => void;

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface MessageSource {
  kind: string;
  form?: string;
  [key: string]: unknown;
}

export interface UserMessage {
  id: string;
  role: "user";
  content: ContentBlock[];
  source: MessageSource;
}

export interface SessionHeader {
  id: string;
  createdAt?: number;
  cwd?: string;
  parentSession?: string;
  origin?: string;
}

export interface SessionEvent {
  type: string;
  seq: number;
  time: number;
  data: Record<string, unknown> | undefined;
}

export interface HostSession {
  header: SessionHeader;
  /** ≤ 0.1.x: the frozen event list. Removed in 0.2. */
  events?: readonly SessionEvent[];
  /** 0.1.x–0.2 (deprecated in 0.2). */
  snapshotEvents?(from?: number, to?: number): readonly SessionEvent[];
}

export interface HostAgent {
  id: string;
  session: HostSession;
  options?: { provider?: string; model?: string };
}

export type PreStepDecision = { kind: "reject" } | { kind: "enter"; messages: UserMessage[] };

export interface PreStepPayload {
  agent: HostAgent;
  messages: UserMessage[];
  turn: number;
  step: number;
  signal: AbortSignal;
}

export interface TurnStoppingPayload {
  agent: HostAgent;
  turn: number;
  signal: AbortSignal;
}

export interface ToolRunContext {
  callId: string;
  name: string;
  agent?: HostAgent;
  signal: AbortSignal;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  output: {
    schema: Record<string, unknown>;
    render(args: unknown, value: unknown): ContentBlock[];
  };
  execute(args: unknown, exec: ToolRunContext): Promise<unknown>;
  timeoutMs?: number;
  isConcurrencySafe?(args: unknown): boolean;
}

export interface WebRoute {
  kind: "exact" | "prefix";
  path: string;
  handler(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

export interface HostLogger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

export interface ToolsService {
  register(definition: ToolDefinition): Disposer;
}

export interface WebServerService {
  register(route: WebRoute): Disposer;
}

/** The part of a Cordis context the plugin uses. Every registration is an effect of the fiber. */
export interface HostContext {
  on(event: "session/event", listener: (session: HostSession, event: SessionEvent) => void, options?: ListenerOptions): Disposer;
  on(event: "session/disposed", listener: (session: HostSession) => void, options?: ListenerOptions): Disposer;
  on(event: "agent/turn-stopping", listener: (payload: TurnStoppingPayload) => void | Promise<void>, options?: ListenerOptions): Disposer;
  on(event: "agent/pre-step", listener: (payload: PreStepPayload, next: () => Promise<PreStepDecision>) => Promise<PreStepDecision>, options?: ListenerOptions): Disposer;
  effect(execute: () => Disposer | (() => Promise<void>), label?: string): unknown;
  inject(deps: string[], callback: (ctx: HostContext) => void | Promise<void>): unknown;
  get(name: string): unknown;
  logger?: HostLogger | ((name: string) => HostLogger);
  tools?: ToolsService;
  webServer?: WebServerService;
}

export interface ListenerOptions {
  prepend?: boolean;
  global?: boolean;
}
