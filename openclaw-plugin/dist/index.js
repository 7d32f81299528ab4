import { registerWrites, writesRecall } from "./writes.js";
import { TOOL_NAMES, call, declarations, locate, lookedIn, settings, shown, stopAll, } from "./process.js";
import { registerMemoryCli } from "./cli.js";
export { call } from "./process.js";
function problems(config, raw) {
    const found = {};
    if (locate(config.command) === null) {
        found.missing =
            `trinho memory: the command \`${config.command}\` was not found (looked in: ` +
                `${lookedIn().join(", ")}); the memory tools answer this error until it is. Install ` +
                "trinho where the gateway finds it, or set plugins.entries.trinho.config.command " +
                "to its full path, e.g. /home/me/trinho/.venv/bin/trinho.";
    }
    const dreaming = (raw ?? {}).dreaming;
    if (dreaming?.enabled !== false) {
        found.shadowed =
            "trinho memory: plugins.entries.trinho.config.dreaming.enabled is not false, so " +
                "memory-core loads beside trinho and its memory_search and memory_get shadow " +
                "trinho's. Run: openclaw config set plugins.entries.trinho.config.dreaming.enabled false";
    }
    return found;
}
// Until trinho's own declarations are in (asked once, without blocking), a tool is declared by
// name with any arguments: trinho checks them either way.
function provisional(name) {
    return {
        name,
        description: `${name} (trinho's memory; its full description is loading).`,
        inputSchema: { type: "object", additionalProperties: true },
    };
}
// The tools for one agent's workspace. A call trinho refused (bad arguments, a value the rules
// refuse) is thrown as an input error, so the model is shown the reason and can fix its call;
// with trinho missing, every call answers why.
function tools(config, ctx, missing, known) {
    const workspace = ctx.workspaceDir;
    if (!workspace)
        return null;
    const agent = config.agent ?? ctx.agentId ?? "main";
    const declared = Array.isArray(known) ? known : TOOL_NAMES.map(provisional);
    return declared.map((tool) => ({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        async execute(_id, params, signal) {
            if (missing)
                throw shown(missing);
            const answer = await call(config, workspace, agent, tool.name, params, signal);
            if (answer.is_error)
                throw shown(answer.text);
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
        const { missing, shadowed } = problems(config, api.pluginConfig);
        const found = [missing, shadowed].filter((line) => line !== undefined);
        api.registerMemoryCapability({
            promptBuilder: ({ availableTools, citationsMode }) => recall(availableTools, citationsMode),
        });
        api.registerTool((ctx) => {
            const known = missing ? undefined : declarations(config);
            if (known instanceof Error)
                api.logger.warn(`trinho: ${known.message}`);
            return tools(config, ctx, missing, known);
        }, { names: TOOL_NAMES });
        registerWrites(api, config, call);
        registerMemoryCli(api, config);
        api.registerService({
            id: "trinho",
            start(ctx) {
                for (const line of found)
                    ctx.logger.error(line);
                if (found.length > 0)
                    ctx.serviceHealth?.reportFailure(new Error(found.join(" ")));
                if (!missing)
                    declarations(config); // asked now, ready before the first call
            },
            stop() {
                stopAll();
            },
        });
    },
};
export default plugin;
