// trinho as OpenClaw's memory plugin: it takes plugins.slots.memory and gives the agent
// memory_search, memory_get, memory_save and user_memory_save. Each call runs
// `trinho --workspace <agent workspace> call <tool> --profile openclaw` once, arguments on
// stdin, one JSON line back: no server to start, no token to share, no port, and every rule
// (the argument checks, the result shapes, who may do what) stays in trinho.
import { spawn, spawnSync } from "node:child_process";
import { registerWrites, writesRecall } from "./writes.js";
const TOOL_NAMES = ["memory_search", "memory_get", "memory_save", "user_memory_save"];
const CALL_TIMEOUT_MS = 120_000;
function settings(raw) {
    const given = (raw ?? {});
    return {
        command: typeof given.command === "string" && given.command ? given.command : "trinho",
        agent: typeof given.agent === "string" && given.agent ? given.agent : undefined,
        as: given.as === "job" ? "job" : "chat",
    };
}
// The tools as trinho declares them in its openclaw profile, asked once per command: the
// names, descriptions and schemas have one source, trinho's.
const declared = new Map();
function declarations(command) {
    const known = declared.get(command);
    if (known)
        return known;
    const run = spawnSync(command, ["tools", "--format", "mcp", "--profile", "openclaw"], {
        encoding: "utf8",
        timeout: CALL_TIMEOUT_MS,
    });
    if (run.error || run.status !== 0) {
        const why = run.error ? run.error.message : run.stderr.trim().split("\n").pop();
        throw new Error(`trinho: \`${command} tools\` failed: ${why}`);
    }
    const wanted = JSON.parse(run.stdout).filter((tool) => TOOL_NAMES.includes(tool.name));
    declared.set(command, wanted);
    return wanted;
}
function call(config, workspace, agent, tool, params, signal) {
    const args = ["--workspace", workspace, "call", tool, "--profile", "openclaw"];
    args.push("--as", config.as, "--agent", agent);
    return new Promise((resolve, reject) => {
        const child = spawn(config.command, args, { signal, timeout: CALL_TIMEOUT_MS });
        const out = [];
        const err = [];
        child.stdout.on("data", (chunk) => out.push(chunk));
        child.stderr.on("data", (chunk) => err.push(chunk));
        child.on("error", reject);
        child.on("close", (code) => {
            const line = Buffer.concat(out).toString("utf8").trim().split("\n").pop() ?? "";
            try {
                resolve(JSON.parse(line));
            }
            catch {
                const why = Buffer.concat(err).toString("utf8").trim() || `exit ${code}`;
                reject(new Error(`trinho ${tool}: ${why}`));
            }
        });
        child.stdin.end(JSON.stringify(params ?? {}));
    });
}
// A call trinho refused (bad arguments, a value the rules refuse): named as OpenClaw names an
// input error, so the model is shown the reason and can fix its call.
function refused(text) {
    const error = new Error(text);
    error.name = "ToolInputError";
    return error;
}
function tools(config, ctx) {
    const workspace = ctx.workspaceDir;
    if (!workspace)
        return null;
    const agent = config.agent ?? ctx.agentId ?? "main";
    return declarations(config.command).map((tool) => ({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        async execute(_id, params, signal) {
            const answer = await call(config, workspace, agent, tool.name, params, signal);
            if (answer.is_error)
                throw refused(answer.text);
            return { content: [{ type: "text", text: answer.text }], details: answer.data };
        },
    }));
}
// The "Memory Recall" section of the agent's prompt, in place of memory-core's: it names the
// tools this plugin gives.
function recall(available, citations) {
    if (!available.has("memory_search") && !available.has("memory_get"))
        return [];
    const lines = ["## Memory Recall"];
    if (available.has("memory_search")) {
        lines.push("Your long-term memory is trinho. Before you answer about earlier conversations, " +
            "decisions, dates, people, preferences or todos, call memory_search" +
            (available.has("memory_get")
                ? ", then memory_get for just the lines you need from a result's path."
                : "."));
    }
    if (available.has("memory_save")) {
        lines.push("Save what may matter later with memory_save (one line in today's note) and lasting " +
            "facts about the owner with user_memory_save. A change that needs the owner waits " +
            "for their decision: you cannot approve one.");
    }
    lines.push(...writesRecall(available));
    lines.push("If a result says disabled, unavailable or status error, tell the user, with its " +
        "warning and action. If you are unsure after searching, say that you checked.");
    lines.push(citations === "off"
        ? "Do not name file paths or line numbers unless the user asks."
        : "Cite Source: <path#line> when it helps the user check a memory.");
    lines.push("");
    return lines;
}
const plugin = {
    id: "trinho",
    name: "trinho memory",
    description: "memory_search, memory_get, memory_save and user_memory_save backed by trinho",
    register(api) {
        const config = settings(api.pluginConfig);
        api.registerMemoryCapability({
            promptBuilder: ({ availableTools, citationsMode }) => recall(availableTools, citationsMode),
        });
        api.registerTool((ctx) => {
            try {
                return tools(config, ctx);
            }
            catch (error) {
                api.logger.warn(String(error instanceof Error ? error.message : error));
                return null;
            }
        }, { names: TOOL_NAMES });
        registerWrites(api, config, call);
    },
};
export default plugin;
