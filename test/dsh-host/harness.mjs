// A real DSH host for the plugin's integration tests: the published agent loop, session store,
// tool registry, system prompt, LLM runtime and web server from npm (versions pinned in this
// folder's package.json), with a scripted model adapter in place of a hosted LLM. It loads the
// built plugin (dist/plugin/index.mjs) and is driven over stdin/stdout, one JSON object per line.
// Runs on Node >= 22 (DSH's requirement); test/plugin/dsh-host-driver.ts finds that Node.
import { Context } from "@deepseek-ai/cordis";
import AgentLoop from "@deepseek-ai/dsh-agent-loop";
import AgentRegistry from "@deepseek-ai/dsh-agent";
import LlmService, { LlmAdapter, createUserMessage } from "@deepseek-ai/dsh-llm";
import SessionStore from "@deepseek-ai/dsh-session";
import SystemPrompt from "@deepseek-ai/dsh-system-prompt";
import ToolRegistry from "@deepseek-ai/dsh-tools";
import WebServer from "@deepseek-ai/dsh-host-webserver";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const pluginPath = process.argv[2];
if (!pluginPath) throw new Error("usage: harness.mjs <path of dist/plugin/index.mjs>");

/** Model steps still to play, in order: {text} | {tool, args} | {throw}. */
const script = [];
/** Every model request, simplified to what tests assert on. */
const requests = [];

class ScriptedAdapter extends LlmAdapter {
  providerInfo(provider) {
    return { id: provider, name: "scripted" };
  }
  async *stream(options) {
    requests.push(simplifyRequest(options));
    const step = script.shift() ?? { text: "(no scripted reply)" };
    if (step.throw) throw new Error(step.throw);
    if (step.tool) {
      const args = JSON.stringify(step.args ?? {});
      const id = `call-${requests.length}`;
      yield { type: "block-start", index: 0, blockType: "tool-call" };
      yield { type: "tool-call-delta", index: 0, id, name: step.tool, argumentsDelta: args };
      yield { type: "block-end", index: 0, block: { type: "tool-call", id, name: step.tool, arguments: args } };
      yield { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } };
      yield { type: "finish", reason: { kind: "tool-calls" } };
      return;
    }
    yield { type: "block-start", index: 0, blockType: "text" };
    yield { type: "text-delta", index: 0, text: step.text };
    yield { type: "block-end", index: 0, block: { type: "text", text: step.text } };
    yield { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } };
    yield { type: "finish", reason: { kind: "stop" } };
  }
}

/** A content block as text: tool results show the text the tool rendered for the model. */
function blockText(block) {
  if (block.type === "text") return block.text;
  if (block.type !== "tool-result") return `[${block.type}]`;
  const inner = Array.isArray(block.content) ? block.content.map(blockText).join("") : JSON.stringify(block.content ?? block.output ?? null);
  return `[tool-result${block.isError ? " error" : ""}] ${inner}`;
}

function simplifyRequest(options) {
  return {
    tools: (options.tools ?? []).map((t) => t.name),
    messages: options.messages.map((m) => ({
      role: m.role,
      source: m.source?.kind ?? null,
      form: m.source?.form ?? null,
      text: (m.content ?? []).map(blockText).join(""),
    })),
  };
}

const state = { ctx: undefined, fiber: undefined, web: undefined, agents: new Map() };

const commands = {
  async boot({ config, webServer }) {
    const ctx = new Context();
    await ctx.plugin(LlmService);
    await ctx.plugin(SessionStore);
    await ctx.plugin(SystemPrompt, {});
    await ctx.plugin(ToolRegistry, {});
    await ctx.plugin(AgentRegistry);
    await ctx.plugin(AgentLoop, { agents: [] });
    if (webServer) await ctx.plugin(WebServer, { host: "127.0.0.1", port: 0 });
    ctx.llm.registerAdapter(["scripted"], new ScriptedAdapter());
    state.ctx = ctx;
    state.web = webServer ? ctx.get("webServer") : undefined;
    return commands.load({ config });
  },
  async load({ config }) {
    const plugin = await import(pluginPath);
    state.fiber = state.ctx.plugin(plugin, config);
    await state.fiber;
    return { webPort: state.web?.port ?? null, exports: Object.keys(plugin).sort() };
  },
  async createAgent({ sessionId, cwd, parentSession }) {
    const route = { provider: "scripted", model: "scripted-model" };
    let agent;
    if (parentSession) {
      const handle = await state.ctx.agentLoop.createAgent(state.ctx, {
        sessionId,
        meta: { cwd, origin: "subagent", parentSession, delegationDepth: 1 },
        agentOptions: route,
      });
      agent = handle.agent;
    } else {
      agent = state.ctx.agentLoop.create(sessionId, route, { cwd });
    }
    state.agents.set(sessionId, agent);
    return { sessionId };
  },
  async turn({ sessionId, text, steps }) {
    const agent = state.agents.get(sessionId);
    if (!agent) throw new Error(`no agent ${sessionId}`);
    script.push(...steps);
    const first = requests.length;
    const started = performance.now();
    agent.followup(createUserMessage({ source: { kind: "user" }, content: [{ type: "text", text }] }));
    await agent.whenIdle();
    return { elapsedMs: performance.now() - started, requests: requests.slice(first), unplayed: script.splice(0).length };
  },
  async sessionLog({ sessionId }) {
    const session = state.agents.get(sessionId).session;
    const events = typeof session.snapshotEvents === "function" ? session.snapshotEvents() : session.events;
    return events.map((e) => ({ type: e.type, turn: e.data?.turn ?? null, source: e.data?.source?.kind ?? null, reason: e.data?.reason?.kind ?? null }));
  },
  /** Serves files at exact paths on the host's web server (the settings-panel test page). */
  async serveFiles({ files }) {
    for (const [route, { file, type }] of Object.entries(files)) {
      state.web.register({
        kind: "exact",
        path: route,
        handler: (req, res) => {
          const body = readFileSync(file);
          res.writeHead(200, { "content-type": type, "content-length": body.length, "cache-control": "no-store" });
          res.end(body);
        },
      });
    }
    return { routes: Object.keys(files) };
  },
  async disposePlugin() {
    await state.fiber.dispose();
    return { tools: state.ctx.get("tools") ? [...(state.ctx.tools.schemas?.() ?? [])].map((t) => t.name) : [] };
  },
  async shutdown() {
    await state.ctx?.fiber.dispose();
    setImmediate(() => process.stdin.destroy());
    return { ok: true };
  },
};

const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  let request;
  try {
    request = JSON.parse(line);
    const result = await commands[request.cmd](request);
    process.stdout.write(JSON.stringify({ id: request.id, ok: true, result }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ id: request?.id ?? null, ok: false, error: String(error?.stack ?? error) }) + "\n");
  }
});
