// `openclaw memory status|search|index` while trinho holds the memory slot (memory-core, whose
// command it is, is not loaded then): each runs the trinho command that does it on the agent's
// workspace and passes its output through. A command line, not the gateway: it may wait.
import { spawnSync } from "node:child_process";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { type Settings, locate, lookedIn } from "./process.js";

type Options = { workspace?: string; json?: boolean; rebuild?: boolean; force?: boolean };

function run(config: Settings, workspace: string, args: string[]): void {
  const command = locate(config.command);
  if (command === null) {
    process.stderr.write(
      `trinho memory: the command \`${config.command}\` was not found (looked in: ` +
        `${lookedIn().join(", ")}); set plugins.entries.trinho.config.command to its full path.\n`,
    );
    process.exitCode = 1;
    return;
  }
  const done = spawnSync(command, ["--workspace", workspace, ...args], { stdio: "inherit" });
  process.exitCode = done.status ?? 1;
}

export function registerMemoryCli(api: OpenClawPluginApi, config: Settings): void {
  api.registerCli(
    ({ program, config: claw, workspaceDir }) => {
      const defaults = (claw as { agents?: { defaults?: { workspace?: string } } }).agents;
      const where = (given: Options): string =>
        given.workspace ?? workspaceDir ?? defaults?.defaults?.workspace ?? ".";
      const memory = program
        .command("memory")
        .description("trinho's memory: status, search and index, answered by trinho");
      memory
        .command("status")
        .description("Bring trinho's index up to date and count what it holds")
        .option("--workspace <dir>", "The agent workspace (default: the default agent's)")
        .action((given: Options) => run(config, where(given), ["index"]));
      memory
        .command("index")
        .description("Bring trinho's index up to date (--force: rebuild it)")
        .option("--workspace <dir>", "The agent workspace (default: the default agent's)")
        .option("--force", "Rebuild the index from the files")
        .action((given: Options) =>
          run(config, where(given), given.force ? ["index", "--rebuild"] : ["index"]),
        );
      memory
        .command("search <query...>")
        .description("Search trinho's memory")
        .option("--workspace <dir>", "The agent workspace (default: the default agent's)")
        .option("--json", "JSON output")
        .action((query: string[], given: Options) =>
          run(config, where(given), ["search", ...(given.json ? ["--json"] : []), "--", query.join(" ")]),
        );
    },
    {
      descriptors: [
        { name: "memory", description: "trinho's memory: status, search, index", hasSubcommands: true },
      ],
    },
  );
}
