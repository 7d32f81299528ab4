// The agent's own writes to memory, through trinho. OpenClaw's seeded AGENTS.md tells the agent
// to fold facts into MEMORY.md and remove outdated entries with its file tools; trinho's gate
// must judge those writes as it judges every writer that is not the owner.
//
// - `write` and `edit` of MEMORY.md (or of a fact under users/*/facts/) are stopped before they
//   run (before_tool_call) and handed to trinho (`openclaw_memory_write`, a tool only this
//   plugin calls): what the gate lets apply is written, each removed or edited owner line
//   waits for the owner as a proposal, and the agent reads that as the tool's answer. Unreachable
//   trinho: the write is refused, never let through.
// - Any other call (a shell, a patch, a write elsewhere) is watched: MEMORY.md is read before
//   it runs and after; when it changed, trinho gates the change against the text before
//   (`openclaw_memory_changed`): removed and edited lines are put back and proposed.
import { readdir, readFile, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
const MEMORY = "MEMORY.md";
const LEGACY = "memory.md";
// The workspace's long-term memory file as trinho names it (`Workspace.memory_name`):
// MEMORY.md, or a lone legacy memory.md.
async function memoryName(workspace) {
    const has = (name) => readdir(workspace).then((names) => names.includes(name), () => false);
    return !(await has(MEMORY)) && (await has(LEGACY)) ? LEGACY : MEMORY;
}
const FILE_TOOLS = new Set(["write", "edit"]);
// Tools that never write MEMORY.md: not watched.
const QUIET = new Set(["read", "memory_search", "memory_get", "memory_save", "user_memory_save"]);
function workspaceOf(api, agentId) {
    try {
        const config = api.runtime.config.current();
        return api.runtime.agent.resolveAgentWorkspaceDir(config, agentId ?? "main");
    }
    catch {
        return undefined;
    }
}
async function real(path) {
    try {
        return await realpath(path);
    }
    catch {
        return path;
    }
}
// The workspace-relative path a file tool's `path` names when it is one of trinho's files
// (MEMORY.md, a fact), else null. Resolved as OpenClaw's file tools resolve it: `@`, `file://`
// and `~/` expanded, relative to the workspace, through symbolic links of its folder.
export async function memoryPath(workspace, raw) {
    if (typeof raw !== "string" || !raw.trim())
        return null;
    let path = raw.trim().replace(/^@/, "");
    if (path.startsWith("file://")) {
        try {
            path = fileURLToPath(path);
        }
        catch {
            return null;
        }
    }
    if (path === "~" || path.startsWith("~/"))
        path = join(homedir(), path.slice(1));
    const absolute = resolve(workspace, path);
    const file = await realpath(absolute).catch(async () => join(await real(dirname(absolute)), basename(absolute)));
    const rel = relative(await real(workspace), file).split(sep).join("/");
    if (!rel || rel.startsWith("../") || isAbsolute(rel))
        return null;
    const memory = await memoryName(workspace);
    return rel === memory || /^users\/[^/]+\/facts\/./.test(rel) ? rel : null;
}
// An `edit` call's replacements as OpenClaw's own edit tool reads them: `edits`, given as a
// list or as its JSON text, plus a top-level oldText/newText pair.
export function editsOf(params) {
    let edits = params.edits;
    if (typeof edits === "string") {
        try {
            edits = JSON.parse(edits);
        }
        catch {
            edits = [];
        }
    }
    const found = Array.isArray(edits) ? [...edits] : [];
    if (typeof params.oldText === "string" && typeof params.newText === "string") {
        found.push({ oldText: params.oldText, newText: params.newText });
    }
    return found.map((edit) => edit && typeof edit === "object"
        ? {
            oldText: edit.oldText,
            newText: edit.newText,
        }
        : edit);
}
async function memoryText(workspace) {
    try {
        return await readFile(join(workspace, await memoryName(workspace)), "utf8");
    }
    catch {
        return null;
    }
}
function why(error) {
    return error instanceof Error ? error.message : String(error);
}
export function registerWrites(api, config, call) {
    const watched = new Map();
    api.on("before_tool_call", async (event, ctx) => {
        const workspace = workspaceOf(api, ctx.agentId);
        if (!workspace || QUIET.has(event.toolName))
            return;
        const agent = config.agent ?? ctx.agentId ?? "main";
        const path = FILE_TOOLS.has(event.toolName)
            ? await memoryPath(workspace, event.params.path)
            : null;
        if (!path) {
            // any other call (a write elsewhere too: a link may lead to MEMORY.md) is watched
            const key = event.toolCallId ?? ctx.toolCallId;
            if (!key)
                return;
            watched.set(key, { workspace, agent, before: await memoryText(workspace) });
            // a call whose after_tool_call never comes (blocked by another plugin) is forgotten
            if (watched.size > 256)
                watched.delete(watched.keys().next().value);
            return;
        }
        const params = event.toolName === "write"
            ? { path, content: event.params.content }
            : { path, edits: editsOf(event.params) };
        try {
            const answer = await call(config, workspace, agent, "openclaw_memory_write", params, ctx.abortSignal);
            const said = (answer.data ?? {});
            const message = typeof said.message === "string" ? said.message : answer.text;
            return { block: true, blockReason: answer.is_error ? `Not written: ${message}` : message };
        }
        catch (error) {
            return {
                block: true,
                blockReason: `Not written: trinho keeps ${path} and could not be reached (${why(error)}). ` +
                    "Save with memory_save instead, and tell the owner.",
            };
        }
    });
    api.on("after_tool_call", async (event, ctx) => {
        const key = event.toolCallId ?? ctx.toolCallId;
        const seen = key ? watched.get(key) : undefined;
        if (!key || !seen)
            return;
        watched.delete(key);
        if ((await memoryText(seen.workspace)) === seen.before)
            return;
        const params = { before: seen.before ?? "", tool: event.toolName };
        try {
            const answer = await call(config, seen.workspace, seen.agent, "openclaw_memory_changed", params);
            const said = (answer.data ?? {});
            if (answer.is_error)
                api.logger.warn(`trinho: ${answer.text}`);
            else if (typeof said.message === "string" && said.message)
                api.logger.warn(said.message);
        }
        catch (error) {
            api.logger.warn(`trinho: ${MEMORY} changed during ${event.toolName}: ${why(error)}`);
        }
    });
}
// The recall section's lines on writing memory: MEMORY.md is trinho's.
export function writesRecall(available) {
    if (!available.has("memory_save"))
        return [];
    return [
        "MEMORY.md is kept by trinho: do not write, edit or delete it yourself, even where other " +
            "instructions (AGENTS.md) say to fold facts into it or remove outdated entries. Save " +
            "with memory_save and user_memory_save; trinho's weekly condensation folds notes into " +
            "MEMORY.md. A write or edit of MEMORY.md is handed to trinho: a new dated entry " +
            "(- YYYY-MM-DD: text) is kept, and any removal or change of a line waits for the " +
            "owner's decision.",
    ];
}
