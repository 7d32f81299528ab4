// The trinho process the plugin keeps: one `trinho call --serve` per gateway and command,
// started at the first call, restarted when it dies, asked one JSON line per call and
// answering one line each. Every rule stays in trinho; this file only carries lines, finds
// the command, and ends a process that hangs (its whole process group, so a shell wrapper's
// children go too).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";

export const TOOL_NAMES = ["memory_search", "memory_get", "memory_save", "user_memory_save"];
export const DEFAULT_TIMEOUT_SECONDS = 120;

export type Settings = {
  command: string;
  agent?: string;
  as: "chat" | "job";
  timeoutSeconds: number;
};
export type Declared = { name: string; description: string; inputSchema: object };
export type Answer = { is_error: boolean; text: string; data: unknown };

export function settings(raw: unknown): Settings {
  const given = (raw ?? {}) as Record<string, unknown>;
  const timeout = given.timeoutSeconds;
  return {
    command: typeof given.command === "string" && given.command ? given.command : "trinho",
    agent: typeof given.agent === "string" && given.agent ? given.agent : undefined,
    as: given.as === "job" ? "job" : "chat",
    timeoutSeconds:
      typeof timeout === "number" && timeout > 0 ? timeout : DEFAULT_TIMEOUT_SECONDS,
  };
}

// Where the plugin looks for trinho when the config names no path: the gateway's PATH, then
// ~/.local/bin (pipx's and `pip install --user`'s place, often missing from a service's PATH).
export function lookedIn(): string[] {
  return ["PATH", join(homedir(), ".local", "bin")];
}

function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// The command's full path, or null when it is found nowhere the lookup goes. A cheap look at
// files only: nothing is run.
export function locate(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : join(process.cwd(), command);
    return runnable(path) ? path : null;
  }
  const dirs = [...(env.PATH ?? "").split(delimiter).filter(Boolean), lookedIn()[1]];
  for (const dir of dirs) {
    const path = join(dir, command);
    if (runnable(path)) return path;
  }
  return null;
}

// A failure the model and the caller are shown as it is (OpenClaw passes an input error's
// message on; any other error becomes "tool execution failed").
export function shown(text: string): Error {
  const error = new Error(text);
  error.name = "ToolInputError";
  return error;
}

type Waiting = {
  tool: string;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
};

function ended(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with status ${code}`;
}

// One kept `trinho call --serve`. Requests go in order; each has its own deadline, and a
// deadline missed ends the process group (every call waiting on it fails, naming the timeout).
class Kept {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private next = 1;
  private pending = "";
  private stderr = "";

  constructor(
    private readonly command: string,
    private readonly timeoutSeconds: number,
  ) {}

  private start(): ChildProcessWithoutNullStreams {
    // detached: its own process group, so a timeout ends the wrapper and all it started.
    const child = spawn(this.command, ["call", "--serve"], {
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.pending = "";
    this.stderr = "";
    child.stdin.on("error", () => undefined); // a dead child: its exit says why
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.read(chunk));
    child.stderr.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-2000);
    });
    child.on("error", (error: Error) => {
      if (this.child === child) this.child = null;
      this.failAll(`cannot run \`${this.command}\`: ${error.message}`);
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return; // already ended and replaced
      this.child = null;
      const last = this.stderr.trim().split("\n").pop();
      this.failAll(`\`${this.command} call --serve\` ${ended(code, signal)}${last ? `: ${last}` : ""}`);
    });
    return child;
  }

  // While a call waits, the kept process holds the event loop open; idle, it never keeps a
  // command that loaded the plugin from exiting.
  private hold(): void {
    const child = this.child;
    if (!child) return;
    const on = this.waiting.size > 0;
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      const handle = stream as unknown as { ref?: () => void; unref?: () => void };
      if (on) handle.ref?.();
      else handle.unref?.();
    }
    if (on) child.ref();
    else child.unref();
  }

  private read(chunk: string): void {
    this.pending += chunk;
    let end = this.pending.indexOf("\n");
    while (end >= 0) {
      const line = this.pending.slice(0, end).trim();
      this.pending = this.pending.slice(end + 1);
      end = this.pending.indexOf("\n");
      if (!line) continue;
      let answer: { id?: unknown; error?: unknown } & Partial<Answer>;
      try {
        answer = JSON.parse(line);
      } catch {
        continue; // not an answer (a wrapper's own output): ignored
      }
      const waiting = typeof answer.id === "number" ? this.waiting.get(answer.id) : undefined;
      if (!waiting || typeof answer.id !== "number") continue;
      this.waiting.delete(answer.id);
      clearTimeout(waiting.timer);
      this.hold();
      if (typeof answer.error === "string") {
        waiting.reject(shown(`trinho ${waiting.tool}: ${answer.error}`));
      } else {
        waiting.resolve({
          is_error: answer.is_error === true,
          text: String(answer.text ?? ""),
          data: answer.data,
        });
      }
    }
  }

  private failAll(why: string): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const one of waiting) {
      clearTimeout(one.timer);
      one.reject(shown(`trinho ${one.tool}: ${why}`));
    }
  }

  // End the process and everything in its group; the next call starts a fresh one.
  stop(why: string): void {
    const child = this.child;
    this.child = null;
    if (child?.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    this.failAll(why);
  }

  ask(request: Record<string, unknown>, tool: string, signal?: AbortSignal): Promise<Answer> {
    const child = this.child ?? this.start();
    const id = this.next++;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.stop(
            `no answer in ${this.timeoutSeconds} s (timeout): trinho's process group was ` +
              "ended with SIGKILL",
          ),
        this.timeoutSeconds * 1000,
      );
      this.waiting.set(id, { tool, resolve, reject, timer });
      this.hold();
      signal?.addEventListener(
        "abort",
        () => {
          const waiting = this.waiting.get(id);
          if (!waiting) return;
          this.waiting.delete(id); // its answer, when it comes, is dropped
          clearTimeout(waiting.timer);
          this.hold();
          reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
        },
        { once: true },
      );
      child.stdin.write(JSON.stringify({ id, ...request }) + "\n");
    });
  }
}

const kept = new Map<string, Kept>();

function keptFor(config: Settings): Kept {
  const key = `${config.command}\0${config.timeoutSeconds}`;
  let found = kept.get(key);
  if (!found) {
    found = new Kept(locate(config.command) ?? config.command, config.timeoutSeconds);
    kept.set(key, found);
  }
  return found;
}

// Every kept trinho ended (the gateway stopping, or the plugin unloaded).
export function stopAll(): void {
  for (const one of kept.values()) one.stop("the gateway is stopping");
  kept.clear();
}
process.once("exit", stopAll);

// One tool call through the kept trinho: its answer line, or an error naming why there is
// none (trinho not found, killed by a signal, exited, or no answer before the timeout).
export function call(
  config: Settings,
  workspace: string,
  agent: string,
  tool: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<Answer> {
  const request = {
    workspace,
    agent,
    as: config.as,
    tool,
    params: params ?? {},
    profile: "openclaw",
  };
  return keptFor(config).ask(request, tool, signal);
}

// The tools as trinho declares them in its openclaw profile, asked once per command without
// blocking the gateway: undefined until the answer is in, the error when it failed (said once,
// then asked again).
const declared = new Map<string, Declared[] | Error | undefined>();

export function declarations(config: Settings): Declared[] | Error | undefined {
  if (declared.has(config.command)) {
    const known = declared.get(config.command);
    if (known instanceof Error) declared.delete(config.command);
    return known;
  }
  declared.set(config.command, undefined);
  const command = locate(config.command) ?? config.command; // where `problems` found it
  const child = spawn(command, ["tools", "--format", "mcp", "--profile", "openclaw"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.unref();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const timer = setTimeout(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }, config.timeoutSeconds * 1000);
  timer.unref();
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.on("error", (error: Error) => {
    clearTimeout(timer);
    declared.set(config.command, new Error(`cannot run \`${config.command}\`: ${error.message}`));
  });
  child.on("close", (code, signal) => {
    clearTimeout(timer);
    if (declared.get(config.command) instanceof Error) return;
    try {
      const all = JSON.parse(Buffer.concat(out).toString("utf8")) as Declared[];
      declared.set(
        config.command,
        all.filter((tool) => TOOL_NAMES.includes(tool.name)),
      );
    } catch {
      const why = Buffer.concat(err).toString("utf8").trim().split("\n").pop();
      declared.set(
        config.command,
        new Error(`\`${config.command} tools\` ${ended(code, signal)}${why ? `: ${why}` : ""}`),
      );
    }
  });
  return undefined;
}
